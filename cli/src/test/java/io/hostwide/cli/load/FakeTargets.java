package io.hostwide.cli.load;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** Test doubles for the bench engine: devices that complete inline or on another thread, and record what they saw. */
final class FakeTargets {

    private FakeTargets() {
    }

    static class Recording implements BenchTarget {
        final long capacity;
        final AtomicLong reads = new AtomicLong();
        final AtomicLong writes = new AtomicLong();
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger maxInFlight = new AtomicInteger();
        final Map<Long, Boolean> offsets = new ConcurrentHashMap<>();
        volatile boolean failEvery7th;
        volatile boolean misaligned;

        Recording(long capacity) {
            this.capacity = capacity;
        }

        @Override
        public String description() {
            return "fake";
        }

        @Override
        public int logicalBlockSize() {
            return 512;
        }

        @Override
        public long capacityBytes() {
            return capacity;
        }

        @Override
        public JobQueue openJob(int jobIndex) {
            return (write, offset, length, buffer, slot, done) -> {
                int now = inFlight.incrementAndGet();
                maxInFlight.accumulateAndGet(now, Math::max);
                if (offset < 0 || offset + length > capacity || offset % length != 0 || buffer.remaining() < length) {
                    misaligned = true;
                }
                offsets.put(offset, Boolean.TRUE);
                long n = write ? writes.incrementAndGet() : reads.incrementAndGet();
                complete(slot, done, !(failEvery7th && n % 7 == 0));
            };
        }

        void complete(int slot, Completion done, boolean ok) {
            inFlight.decrementAndGet();
            done.complete(slot, ok);
        }

        @Override
        public Object stat() {
            return Map.of("reads", reads.get(), "writes", writes.get());
        }

        @Override
        public void close() {
        }
    }

    /** Completes every I/O on a pool thread, like a device with an interrupt path. */
    static final class Async extends Recording {
        private final ExecutorService pool = Executors.newFixedThreadPool(2);

        Async(long capacity) {
            super(capacity);
        }

        @Override
        void complete(int slot, Completion done, boolean ok) {
            pool.execute(() -> super.complete(slot, done, ok));
        }

        @Override
        public void close() {
            pool.shutdownNow();
        }
    }

    /**
     * A polled device ({@code mq_poll}): completes I/Os only inside {@link JobQueue#poll} on the job's thread, one per
     * poll; it refuses the first {@code refusals} polls with -1 (another thread polls), and those I/Os complete on a
     * pool thread instead, as a reader thread would complete them.
     */
    static final class Polled extends Recording {
        private final ExecutorService pool = Executors.newSingleThreadExecutor();
        private final java.util.concurrent.ConcurrentLinkedQueue<Runnable> pending =
                new java.util.concurrent.ConcurrentLinkedQueue<>();
        final AtomicInteger refusals;
        final AtomicLong polledCompletions = new AtomicLong();
        volatile boolean pollOnForeignThread;

        Polled(long capacity, int refusals) {
            super(capacity);
            this.refusals = new AtomicInteger(refusals);
        }

        @Override
        void complete(int slot, Completion done, boolean ok) {
            pending.add(() -> super.complete(slot, done, ok));
        }

        @Override
        public JobQueue openJob(int jobIndex) {
            JobQueue inner = super.openJob(jobIndex);
            Thread job = Thread.currentThread();
            return new JobQueue() {
                @Override
                public void submit(boolean write, long offset, int length, ByteBuffer buffer, int slot, Completion d) {
                    inner.submit(write, offset, length, buffer, slot, d);
                }

                @Override
                public int poll(long timeoutNanos) {
                    if (Thread.currentThread() != job) {
                        pollOnForeignThread = true;
                    }
                    if (refusals.getAndDecrement() > 0) {
                        Runnable r;
                        while ((r = pending.poll()) != null) {
                            pool.execute(r);
                        }
                        return -1;
                    }
                    Runnable r = pending.poll();
                    if (r == null) {
                        return 0;
                    }
                    r.run();
                    polledCompletions.incrementAndGet();
                    return 1;
                }
            };
        }

        @Override
        public void close() {
            pool.shutdownNow();
        }
    }

    /**
     * A broken device: completes each I/O {@code times} times on its completion thread while the submitter waits,
     * and that thread goes on when a callback throws (as a device's interrupt path would).
     */
    static final class OverCompleting extends Recording {
        private final ExecutorService pool = Executors.newSingleThreadExecutor();
        private final int times;

        OverCompleting(long capacity, int times) {
            super(capacity);
            this.times = times;
        }

        @Override
        void complete(int slot, Completion done, boolean ok) {
            inFlight.decrementAndGet();
            Future<?> burst = pool.submit(() -> {
                for (int i = 0; i < times; i++) {
                    try {
                        done.complete(slot, ok);
                    } catch (RuntimeException e) {
                        // the completion thread survives a throwing callback
                    }
                }
            });
            try {
                burst.get();
            } catch (InterruptedException | ExecutionException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() {
            pool.shutdownNow();
        }
    }

    /**
     * Completes inline and records the batches a job opens around its submissions: how many, the largest, and
     * submissions made outside one (one job only: the counters are the job thread's).
     */
    static final class Batching extends Recording {
        int batches;
        int largest;
        int outside;
        boolean unbalanced;
        private boolean open;
        private int current;

        Batching(long capacity) {
            super(capacity);
        }

        @Override
        public JobQueue openJob(int jobIndex) {
            JobQueue inner = super.openJob(jobIndex);
            return new JobQueue() {
                @Override
                public void submit(boolean write, long offset, int length, ByteBuffer buffer, int slot, Completion d) {
                    if (open) {
                        current++;
                    } else {
                        outside++;
                    }
                    inner.submit(write, offset, length, buffer, slot, d);
                }

                @Override
                public void startBatch() {
                    unbalanced |= open;
                    open = true;
                    current = 0;
                }

                @Override
                public void endBatch() {
                    unbalanced |= !open;
                    open = false;
                    batches++;
                    largest = Math.max(largest, current);
                }
            };
        }
    }

    static ByteBuffer unused() {
        return ByteBuffer.allocate(0);
    }
}
