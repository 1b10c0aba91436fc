package io.hostwide.tcm.alua;

import io.hostwide.tcm.lu.SharedAccess;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The writes of one LU waiting, in a gateway that does not own the LU, for ownership to arrive ({@link GatewayAlua},
 * implicit ALUA): each is decided exactly once — admitted when ownership arrives, refused when its bound passes
 * (a timer, so that a takeover stuck on the cluster still answers in time), or let go when task management aborted
 * it. At most {@code max} wait at once: beyond that a write is refused at once (its memory is the command's, already
 * bounded by the sessions' command windows; this bounds the list).
 */
final class ParkedWrites {
    private static final Logger LOG = Logger.getLogger("io.hostwide.tcm.alua");
    /** One timer thread for every LU's bounds: it only decides waiters, never blocks. */
    private static final ScheduledThreadPoolExecutor TIMER = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "gateway-alua-write-wait");
        t.setDaemon(true);
        return t;
    });

    static {
        TIMER.setRemoveOnCancelPolicy(true); // a decided write's bound leaves the timer's queue with it
    }

    private final ConcurrentLinkedQueue<Entry> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final int max;

    ParkedWrites(int max) { this.max = max; }

    /** One parked write; {@link #decide} runs its waiter once, whoever gets there first. */
    private final class Entry {
        final SharedAccess.WriteWaiter waiter;
        final AtomicBoolean done = new AtomicBoolean();
        volatile ScheduledFuture<?> bound;
        long deadline;

        Entry(SharedAccess.WriteWaiter waiter) { this.waiter = waiter; }

        /** Decides unless already decided; the caller has taken this entry off the queue, or does so now. */
        void decide(boolean admitted, boolean remove) {
            if (done.compareAndSet(false, true)) {
                if (remove) {
                    queue.remove(this);
                }
                size.decrementAndGet();
                ScheduledFuture<?> b = bound;
                if (b != null) {
                    b.cancel(false);
                }
                try {
                    waiter.decided(admitted, deadline - System.nanoTime());
                } catch (RuntimeException e) { // a fabric's complete() threw: the other waiters must still go on
                    LOG.log(Level.WARNING, "a parked write's " + (admitted ? "resumption" : "completion") + " failed", e);
                }
            }
        }
    }

    /** Parks {@code w} for at most {@code waitNanos}; false (nothing parked) when {@code max} already wait. */
    boolean park(SharedAccess.WriteWaiter w, long waitNanos) {
        if (size.incrementAndGet() > max) {
            size.decrementAndGet();
            return false;
        }
        Entry e = new Entry(w);
        e.deadline = System.nanoTime() + waitNanos;
        queue.add(e);
        e.bound = TIMER.schedule(() -> e.decide(false, true), waitNanos, TimeUnit.NANOSECONDS);
        return true;
    }

    boolean isEmpty() { return size.get() == 0; }

    int size() { return size.get(); }

    /** Ownership arrived: every waiting write runs, on the caller's thread, in the order they came. */
    void admitAll() {
        decideAll(true);
    }

    /** Ownership will not come (closing, or the takeover failed): every waiting write ends 04h/0Ah. */
    void refuseAll() {
        decideAll(false);
    }

    /** Decides the writes waiting now; one a waiter parks again meanwhile waits for the next round. */
    private void decideAll(boolean admitted) {
        java.util.List<Entry> now = new java.util.ArrayList<>();
        for (Entry e = queue.poll(); e != null; e = queue.poll()) {
            now.add(e);
        }
        for (Entry e : now) {
            e.decide(admitted, false);
        }
    }

    /** Task management: the writes it aborted leave now, so that its response need not wait for their bound. */
    void releaseAborted() {
        for (Entry e : queue) {
            if (e.waiter.aborted()) {
                e.decide(false, true);
            }
        }
    }
}
