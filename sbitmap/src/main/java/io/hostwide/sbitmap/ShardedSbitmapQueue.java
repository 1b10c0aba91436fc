package io.hostwide.sbitmap;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The scalable {@link SbitmapQueue}: a word-sharded {@link Sbitmap} with deferred
 * clears and per-ctx hints, plus batched wake-ups over eight wait queues
 * ({@link SbqWaitQueues}), after Linux's {@code sbitmap_queue} (digest §1.11).
 *
 * <p>{@code get} and {@code clear} take no lock and allocate nothing; with no
 * waiter registered, {@code clear} is one atomic OR on the word's
 * {@code cleared} mask and one volatile read of {@code ws_active}.
 *
 * <p>Deliberate differences from the kernel, each on the side of liveness:
 * <ul>
 *   <li>a free of {@code nr} bits that completes several wake batches wakes them all;</li>
 *   <li>{@link #wakeAll} wakes every exclusive waiter, not one per queue;</li>
 *   <li>{@link #resize} also wakes everyone when the depth grows (new free bits);</li>
 *   <li>{@link #recalculateWakeBatch} re-runs the wake-up check, so completions already
 *       counted can wake a now-smaller batch at once;</li>
 *   <li>an exclusive waiter that gives up (timeout, interrupt) or gets a bit on its own
 *       after a waker picked it passes that wake-up on, and one that was woken but cannot
 *       use the wake-up can pass it on ({@link #passWakeOn}).</li>
 * </ul>
 */
public final class ShardedSbitmapQueue implements SbitmapQueue {

    private final Sbitmap sb;
    private final SbqWaitQueues waits;
    private final Object resizeLock = new Object();
    private volatile int minShallowDepth = Integer.MAX_VALUE;

    public ShardedSbitmapQueue(SbitmapConfig config) {
        this.sb = new Sbitmap(config);
        this.waits = new SbqWaitQueues(SbitmapMath.wakeBatch(config.depth(), Integer.MAX_VALUE));
    }

    /** The underlying bitmap (for iteration and direct bit tests). */
    public Sbitmap sbitmap() {
        return sb;
    }

    @Override
    public int depth() {
        return sb.depth();
    }

    @Override
    public int capacity() {
        return sb.capacity();
    }

    @Override
    public int get(int hint) {
        return sb.get(hint);
    }

    @Override
    public int getShallow(int hint, int shallowDepth) {
        SbitmapMath.checkShallow(shallowDepth, minShallowDepth);
        return sb.getShallow(hint, shallowDepth);
    }

    @Override
    public int getBatch(int nr, int hint, int[] out) {
        return sb.getBatch(nr, hint, out);
    }

    @Override
    public void clear(int bit, int hint) {
        sb.put(bit, hint);
        waits.wakeUp(1);
    }

    @Override
    public void clearBatch(int[] bits, int n) {
        sb.putBatch(bits, n);
        if (n > 0) {
            waits.wakeUp(n);
        }
    }

    @Override
    public int busy() {
        return sb.weight();
    }

    @Override
    public void forEachSet(int start, java.util.function.IntPredicate visitor) {
        sb.forEachSet(start, visitor);
    }

    @Override
    public void resize(int depth) {
        if (depth < 0 || depth > sb.capacity()) {
            throw new IllegalArgumentException("depth " + depth + " outside 0.." + sb.capacity());
        }
        synchronized (resizeLock) {
            int old = sb.depth();
            // Batch first, then depth, as the kernel does (sbitmap_queue_resize).
            int oldBatch = waits.setWakeBatch(SbitmapMath.wakeBatch(depth, minShallowDepth));
            sb.resize(depth);
            if (waits.wakeBatch() < oldBatch || depth > old) {
                waits.wakeAll();
            }
        }
    }

    @Override
    public void setMinShallowDepth(int minShallow) {
        if (minShallow < 1) {
            throw new IllegalArgumentException("min_shallow_depth must be >= 1, got " + minShallow);
        }
        synchronized (resizeLock) {
            minShallowDepth = minShallow;
            int old = waits.setWakeBatch(SbitmapMath.wakeBatch(sb.depth(), minShallow));
            if (waits.wakeBatch() < old) {
                waits.wakeAll();
            }
        }
    }

    @Override
    public int minShallowDepth() {
        return minShallowDepth;
    }

    @Override
    public void recalculateWakeBatch(int users) {
        synchronized (resizeLock) {
            waits.setWakeBatch(SbitmapMath.wakeBatchForUsers(sb.depth(), users));
        }
        waits.wakeUp(0);
    }

    @Override
    public int wakeBatch() {
        return waits.wakeBatch();
    }

    @Override
    public void wakeAll() {
        waits.wakeAll();
    }

    @Override
    public int getBlocking(int hint, WaitIndex waitIndex) throws InterruptedException {
        return getBlocking(hint, waitIndex, -1L, false);
    }

    @Override
    public int getBlocking(int hint, WaitIndex waitIndex, long timeoutNanos) throws InterruptedException {
        return getBlocking(hint, waitIndex, timeoutNanos, true);
    }

    /**
     * The blk-mq tag wait loop (digest §1.7): try; link on the caller's next
     * queue; try again (this re-read of the bitmap follows the ws_active
     * increment, so a free that raced with the link is seen here or counted by
     * its freer); sleep until a waker unlinks us; repeat.
     */
    private int getBlocking(int hint, WaitIndex waitIndex, long timeoutNanos, boolean timed)
            throws InterruptedException {
        Objects.requireNonNull(waitIndex, "waitIndex");
        int bit = sb.get(hint);
        if (bit >= 0 || (timed && timeoutNanos <= 0)) {
            return bit;
        }
        long deadline = timed ? System.nanoTime() + timeoutNanos : 0L;
        Sleeper me = new Sleeper(Thread.currentThread());
        for (;;) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            waits.prepareToWait(waitIndex.nextQueue(), me);
            bit = sb.get(hint);
            if (bit >= 0) {
                waits.finishWait(me);
                return bit;
            }
            if (!me.await(timed, deadline)) {
                waits.finishWait(me);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                return -1;
            }
            bit = sb.get(hint);
            if (bit >= 0 || (timed && deadline - System.nanoTime() <= 0)) {
                return bit;
            }
        }
    }

    @Override
    public void prepareToWait(Sleeper sleeper, WaitIndex waitIndex) {
        Objects.requireNonNull(sleeper, "sleeper");
        Objects.requireNonNull(waitIndex, "waitIndex");
        waits.prepareToWait(waitIndex.nextQueue(), sleeper);
    }

    @Override
    public void finishWait(Sleeper sleeper) {
        Objects.requireNonNull(sleeper, "sleeper");
        waits.finishWait(sleeper);
    }

    @Override
    public boolean passWakeOn(Sleeper sleeper) {
        Objects.requireNonNull(sleeper, "sleeper");
        return waits.passWakeOn(sleeper);
    }

    @Override
    public boolean addWaitQueue(WaitEntry entry, WaitIndex waitIndex) {
        Objects.requireNonNull(entry, "entry");
        Objects.requireNonNull(waitIndex, "waitIndex");
        return waits.addWaitQueue(entry, waitIndex.nextQueue());
    }

    @Override
    public boolean removeWaitQueue(WaitEntry entry) {
        Objects.requireNonNull(entry, "entry");
        return waits.removeWaitQueue(entry);
    }

    @Override
    public SbitmapDump dump() {
        List<Integer> hints = new ArrayList<>(sb.nrHints());
        for (int i = 0; i < sb.nrHints(); i++) {
            hints.add(sb.allocHint(i));
        }
        List<Integer> ws = new ArrayList<>(WAIT_QUEUES);
        for (int i = 0; i < WAIT_QUEUES; i++) {
            ws.add(waits.queued(i));
        }
        return new SbitmapDump(sb.depth(), sb.weight(), sb.clearedCount(), sb.bitsPerWord(), sb.mapNr(),
                List.copyOf(hints), waits.wakeBatch(), waits.wakeIndex(), waits.wsActive(), List.copyOf(ws),
                sb.roundRobin(), minShallowDepth);
    }
}
