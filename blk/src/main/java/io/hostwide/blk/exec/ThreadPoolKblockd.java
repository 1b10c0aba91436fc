package io.hostwide.blk.exec;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The runtime {@link Kblockd}: a small pool of daemon threads. Each
 * {@link DelayedWork} keeps the workqueue guarantees (one pending instance, never
 * concurrent with itself) with a tiny per-item lock; the clock is
 * {@link System#nanoTime()}.
 */
public final class ThreadPoolKblockd implements Kblockd {

    private final ScheduledThreadPoolExecutor pool;

    public ThreadPoolKblockd(String name, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        AtomicInteger n = new AtomicInteger();
        ThreadFactory tf = r -> {
            Thread t = new Thread(r, name + "-" + n.getAndIncrement());
            t.setDaemon(true);
            return t;
        };
        pool = new ScheduledThreadPoolExecutor(threads, tf);
        pool.setRemoveOnCancelPolicy(true);
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public DelayedWork newWork(String name, Runnable body) {
        return new Work(name, body);
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }

    private final class Work implements DelayedWork {
        private final String name;
        private final Runnable body;
        // All written under 'this'. pending and due are volatile for mod()'s lock-free "already due" check.
        private volatile boolean pending;
        private boolean running;
        private volatile long due;
        private long generation;
        private ScheduledFuture<?> future;

        Work(String name, Runnable body) {
            this.name = name;
            this.body = body;
        }

        @Override
        public synchronized boolean queue(long delayNanos) {
            if (pending) {
                return false;
            }
            pending = true;
            due = System.nanoTime() + Math.max(0, delayNanos);
            if (!running) {
                submit();
            }
            return true;
        }

        /**
         * {@code mod_delayed_work}. "Run now" ({@code delayNanos <= 0}, every async queue run) on an item whose
         * pending run is already due changes nothing: that run starts as soon as a worker takes it, as a
         * re-queued one would. It returns without the lock, the executor's queue lock, a cancel and a new
         * future, which several submitters of one hctx otherwise paid on every I/O. No run is lost: the caller
         * published its work with a volatile write (the ctx_map bit, a lock release, a tag) before this volatile
         * read of {@code pending}, and {@link #fire} writes {@code pending = false} (volatile) before the body
         * reads that work, so either the body sees the work or this read sees the run taken and queues another.
         */
        @Override
        public void mod(long delayNanos) {
            if (delayNanos <= 0 && pending && due - System.nanoTime() <= 0) {
                return;
            }
            modLocked(delayNanos);
        }

        private synchronized void modLocked(long delayNanos) {
            if (pending && future != null) {
                future.cancel(false);
                future = null;
            }
            pending = true;
            due = System.nanoTime() + Math.max(0, delayNanos);
            if (!running) {
                submit();
            }
        }

        @Override
        public synchronized boolean cancel() {
            if (!pending) {
                return false;
            }
            pending = false;
            generation++;
            if (future != null) {
                future.cancel(false);
                future = null;
            }
            return true;
        }

        @Override
        public synchronized boolean isPending() {
            return pending;
        }

        @Override
        public synchronized long dueNanos() {
            return due;
        }

        /** Caller holds the lock, the item is pending and not running. */
        private void submit() {
            long gen = ++generation;
            long delay = Math.max(0, due - System.nanoTime());
            if (pool.isShutdown()) {
                pending = false;
                return;
            }
            future = pool.schedule(() -> fire(gen), delay, TimeUnit.NANOSECONDS);
        }

        private void fire(long gen) {
            synchronized (this) {
                if (gen != generation || !pending || running) {
                    return;   // cancelled or moved by mod(); a newer submission owns the run
                }
                pending = false;
                running = true;
                future = null;
            }
            try {
                body.run();
            } catch (Throwable t) {
                Thread.currentThread().getUncaughtExceptionHandler().uncaughtException(Thread.currentThread(), t);
            } finally {
                synchronized (this) {
                    running = false;
                    if (pending) {
                        submit();   // queued while running: run again, never concurrently
                    }
                }
            }
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
