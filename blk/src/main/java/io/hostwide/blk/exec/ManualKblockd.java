package io.hostwide.blk.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A deterministic {@link Kblockd} for tests: a virtual clock that only moves when
 * the test says so, and work that only runs inside {@link #runDue()} /
 * {@link #advance(long)} on the calling thread (SPDK's {@code poll_threads()},
 * Netty's {@code EmbeddedChannel}). Items due at the same time run in the order
 * they were scheduled.
 */
public final class ManualKblockd implements Kblockd {

    /** A run loop that keeps finding due work after this many items is declared a livelock. */
    private static final int LIVELOCK_LIMIT = 1_000_000;

    private final PriorityQueue<Work> queue = new PriorityQueue<>(
            (a, b) -> a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
    private long now;
    private long seq;
    private boolean closed;

    @Override
    public synchronized long nanoTime() {
        return now;
    }

    @Override
    public DelayedWork newWork(String name, Runnable body) {
        return new Work(name, body);
    }

    /** Runs every item due at the current virtual time, including ones they schedule for now. */
    public int runDue() {
        int ran = 0;
        for (;;) {
            Work w;
            synchronized (this) {
                w = queue.peek();
                if (w == null || w.due > now) {
                    return ran;
                }
                queue.poll();
                w.pending = false;
            }
            w.body.run();
            if (++ran > LIVELOCK_LIMIT) {
                throw new IllegalStateException("work keeps re-queueing itself at t=" + now + " (last: " + w.name + ")");
            }
        }
    }

    /** Moves the clock forward by {@code nanos}, running each item at its due time. */
    public int advance(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("cannot go back in time: " + nanos);
        }
        long target;
        synchronized (this) {
            target = now + nanos;
        }
        int ran = runDue();
        for (;;) {
            synchronized (this) {
                Work w = queue.peek();
                if (w == null || w.due > target) {
                    now = target;
                    break;
                }
                now = Math.max(now, w.due);
            }
            ran += runDue();
        }
        return ran + runDue();
    }

    /** Runs due work, then keeps jumping to the next due item until nothing is scheduled within {@code limitNanos}. */
    public int runUntilIdle(long limitNanos) {
        return advance(limitNanos);
    }

    /** Scheduled, not yet run items. */
    public synchronized int pendingCount() {
        return queue.size();
    }

    /** Names of pending items, earliest first (for test diagnostics). */
    public synchronized List<String> pendingNames() {
        List<Work> copy = new ArrayList<>(queue);
        copy.sort(queue.comparator());
        List<String> names = new ArrayList<>();
        for (Work w : copy) {
            names.add(w.name + "@" + w.due);
        }
        return names;
    }

    @Override
    public synchronized void close() {
        closed = true;
        for (Work w : queue) {
            w.pending = false;
        }
        queue.clear();
    }

    private final class Work implements DelayedWork {
        final String name;
        final Runnable body;
        boolean pending;   // guarded by ManualKblockd.this
        long due;
        long seq;

        Work(String name, Runnable body) {
            this.name = name;
            this.body = body;
        }

        @Override
        public boolean queue(long delayNanos) {
            synchronized (ManualKblockd.this) {
                if (pending || closed) {
                    return false;
                }
                enqueue(delayNanos);
                return true;
            }
        }

        @Override
        public void mod(long delayNanos) {
            synchronized (ManualKblockd.this) {
                if (closed) {
                    return;
                }
                if (pending) {
                    queue.remove(this);
                }
                enqueue(delayNanos);
            }
        }

        private void enqueue(long delayNanos) {
            pending = true;
            due = now + Math.max(0, delayNanos);
            seq = ManualKblockd.this.seq++;
            queue.add(this);
        }

        @Override
        public boolean cancel() {
            synchronized (ManualKblockd.this) {
                if (!pending) {
                    return false;
                }
                queue.remove(this);
                pending = false;
                return true;
            }
        }

        @Override
        public boolean isPending() {
            synchronized (ManualKblockd.this) {
                return pending;
            }
        }

        @Override
        public long dueNanos() {
            synchronized (ManualKblockd.this) {
                return due;
            }
        }
    }
}
