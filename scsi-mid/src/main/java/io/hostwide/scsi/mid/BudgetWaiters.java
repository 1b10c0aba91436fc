package io.hostwide.scsi.mid;

import io.hostwide.blk.Hctx;
import io.hostwide.blk.RequestQueue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * {@link RestartPolicy#WAKE_ONE}: one bit per hardware queue of a LUN that was refused a budget.
 *
 * <h2>Why no wake-up is lost</h2>
 * A refused dispatcher on hctx i (W) does: set bit i (full-fence RMW) → take a budget again. A releaser (R) does:
 * return the budget (the sbitmap clear is a full-fence RMW) → scan the bits. This is Dekker's pattern: either W's
 * second take sees R's returned budget and W proceeds, or R's scan sees bit i (or another waiter's bit). R then
 * clears one set bit j whose hctx has pending work and is not stopped, and runs hctx j. That run either takes the
 * budget (progress), or takes it and finds no request — the block layer then returns it, which is a release that
 * wakes the next waiter — or fails to get it because another dispatcher D took it first; D's command is in flight
 * and its completion is another release. A waiter bit found with no pending work is cleared: that hctx's work was
 * dequeued, which needs a budget, so again a release follows; its dispatch list in the hands of its own dispatcher
 * is re-armed by the block layer's "no budget" 3 ms re-run. So every free budget with a parked waiter has a future
 * release or run attached to it. A dispatcher whose re-try succeeds never clears its bit: another dispatcher of
 * the same hctx may have set it and parked (clearing it lost exactly that wake-up in NoLostRequestTest); a spare
 * bit only costs one extra run. Cost per release: one read of the map when nobody waits.
 */
final class BudgetWaiters {
    private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] bits;
    private final int nr;
    /** Round-robin start of the scan; racy plain field (a stale value only changes who is woken first). */
    private int cursor;

    BudgetWaiters(int nrHwQueues) {
        this.nr = nrHwQueues;
        this.bits = new long[(nrHwQueues + 63) >>> 6];
    }

    /** Registers hctx {@code i} as refused; a full-fence RMW that pairs with the release's fence before {@link #wakeOne}. */
    void add(int i) {
        WORD.getAndBitwiseOr(bits, i >>> 6, 1L << (i & 63));
    }

    boolean any() {
        for (int w = 0; w < bits.length; w++) {
            // Volatile read: ordered after the caller's budget release (a full-fence RMW).
            if ((long) WORD.getVolatile(bits, w) != 0) {
                return true;
            }
        }
        return false;
    }

    /** Clears and runs one waiting hctx with work; stale bits on the way are cleared. Returns the hctx run, or -1. */
    int wakeOne(RequestQueue q) {
        int start = cursor;
        for (int k = 0; k < nr; k++) {
            int i = (start + k) % nr;
            long m = 1L << (i & 63);
            if (((long) WORD.getVolatile(bits, i >>> 6) & m) == 0) {
                continue;
            }
            Hctx h = q.hctx(i);
            if (h.isStopped()) {
                continue;   // started queues are run by start(); keep the bit for later releases
            }
            boolean wasSet = ((long) WORD.getAndBitwiseAnd(bits, i >>> 6, ~m) & m) != 0;
            if (!wasSet) {
                continue;   // another releaser took this waiter
            }
            if (!hasWork(h)) {
                continue;
            }
            cursor = i + 1;
            h.runHwQueue(true);
            return i;
        }
        return -1;
    }

    private static boolean hasWork(Hctx h) {
        // runHwQueue skips an hctx without pending work by itself; asking first lets the scan move on to a
        // waiter that can use the budget.
        return h.hasPending();
    }
}
