package io.hostwide.tcm.core;



/**
 * Where a device runs commands that touch a blocking backstore: a bounded queue (the device's queue_depth) served
 * by I/O threads, so that no network thread ever blocks on storage. {@link BlkIoQueue} bounds it with a blk tag
 * set (issue #3); tests may substitute their own.
 */
public interface IoQueue extends AutoCloseable {

    /**
     * Queues {@code cmd}; a worker later calls {@code work.run(cmd)}, gives the command's place in the queue back,
     * and then, if {@code run} returned true, calls {@code complete.run(cmd)}: the response goes out only once the
     * queue has room again, so an initiator that sends its next command on seeing it never meets a full queue that
     * its own finished command still held.
     *
     * @return false when the queue is full (the core answers TASK SET FULL) or closed
     */
    boolean offer(CoreCommand cmd, Work work, Completion complete);

    /** Commands queued or running. */
    int inFlight();

    int depth();

    @Override
    void close();

    /** The step a worker runs for a queued command; true when the command is to be completed now. */
    @FunctionalInterface
    interface Work {
        boolean run(CoreCommand cmd);
    }

    /** Completes a command after its queue place was given back. */
    @FunctionalInterface
    interface Completion {
        void run(CoreCommand cmd);
    }
}
