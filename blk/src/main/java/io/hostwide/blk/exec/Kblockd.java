package io.hostwide.blk.exec;

/**
 * The block layer's asynchronous work queue and clock (the kernel's {@code kblockd}
 * workqueue plus {@code jiffies}). Hardware-queue runs, requeue kicks, request
 * timeout timers and emulated completion timers are all {@link DelayedWork} items
 * created here, so a test can swap in {@link ManualKblockd} and step every
 * asynchronous action by hand (SPDK's {@code poll_threads()}), while runtime uses
 * {@link ThreadPoolKblockd}.
 */
public interface Kblockd extends AutoCloseable {

    /** Monotonic time in nanoseconds; all deadlines in the block layer use this clock. */
    long nanoTime();

    /** A new, idle work item that runs {@code body} each time it fires. */
    DelayedWork newWork(String name, Runnable body);

    /** Stops accepting work; pending items are dropped. */
    @Override
    void close();
}
