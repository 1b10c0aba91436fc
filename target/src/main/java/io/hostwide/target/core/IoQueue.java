package io.hostwide.target.core;

import io.hostwide.target.TargetCommand;

/**
 * Where a device runs commands that touch a blocking backstore: a bounded queue (the device's queue_depth) served
 * by I/O threads, so that no network thread ever blocks on storage. {@link BlkIoQueue} bounds it with a blk tag
 * set (issue #3); tests may substitute their own.
 */
public interface IoQueue extends AutoCloseable {

    /**
     * Queues {@code cmd}; a worker later calls {@code work.run(cmd)}.
     *
     * @return false when the queue is full (the core answers TASK SET FULL) or closed
     */
    boolean offer(TargetCommand cmd, Work work);

    /** Commands queued or running. */
    int inFlight();

    int depth();

    @Override
    void close();

    /** The step a worker runs for a queued command. */
    @FunctionalInterface
    interface Work {
        void run(TargetCommand cmd);
    }
}
