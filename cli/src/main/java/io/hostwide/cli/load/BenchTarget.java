package io.hostwide.cli.load;

import java.nio.ByteBuffer;

/**
 * What {@code hostwide bench} drives: a block device opened from a
 * {@code --device kind[:key=value,...]} spec. Each job thread opens its own
 * {@link JobQueue}; I/O is asynchronous and completes on any thread.
 */
public interface BenchTarget extends AutoCloseable {

    /** One line naming the device and its effective knobs. */
    String description();

    int logicalBlockSize();

    long capacityBytes();

    /** Called on the job's own thread before its first submit. */
    JobQueue openJob(int jobIndex);

    /** The objects' attributes for {@code --stat}: a tree of maps, lists and scalars. */
    Object stat();

    @Override
    void close();

    /** A job's submission handle; used by that job's thread only. */
    interface JobQueue {
        /**
         * Starts one I/O. The device calls {@code done.complete(slot, ok)} exactly once,
         * possibly before this method returns and possibly on another thread.
         */
        void submit(boolean write, long offset, int length, ByteBuffer buffer, int slot, Completion done);

        /**
         * The submissions until {@link #endBatch()} belong together ({@code blk_start_plug}): the device may hold
         * them and send them as one batch. Default: no batching.
         */
        default void startBatch() {
        }

        /** Sends what {@link #startBatch()} held ({@code blk_finish_plug}). */
        default void endBatch() {
        }

        /**
         * Reaps completions on the job's thread, waiting up to {@code timeoutNanos} ({@code blk_poll}): the
         * completions processed (their callbacks ran inside), 0 when the time ran out, -1 when the device cannot
         * be polled now, so the job waits for its callbacks instead. Default: never polled.
         */
        default int poll(long timeoutNanos) {
            return -1;
        }
    }

    /** Completion callback; must be cheap and must not block. */
    @FunctionalInterface
    interface Completion {
        void complete(int slot, boolean ok);
    }
}
