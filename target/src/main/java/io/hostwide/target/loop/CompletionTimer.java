package io.hostwide.target.loop;

import java.util.concurrent.DelayQueue;

/**
 * Delayed completions ({@code delay}/{@code ndelay}, scsi_debug's hrtimer): one timer thread per HBA takes each
 * due {@link LoopTask} off a delay queue and completes it, so the submitting thread never waits and no thread
 * sleeps per command. A task an abort took away is skipped.
 */
final class CompletionTimer implements AutoCloseable {
    private final DelayQueue<LoopTask> queue = new DelayQueue<>();
    private final Thread thread;
    private volatile boolean closed;

    CompletionTimer(String name) {
        this.thread = Thread.ofPlatform().daemon().name(name).start(this::run);
    }

    void schedule(LoopTask t, long delayNanos) {
        t.dueNanos = System.nanoTime() + delayNanos;
        queue.add(t);
    }

    /** Removes a pending task (abort/reset); the caller has already moved its state to ABORTED. */
    void cancel(LoopTask t) {
        queue.remove(t);
    }

    private void run() {
        while (!closed) {
            LoopTask t;
            try {
                t = queue.take();
            } catch (InterruptedException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            if (t.state.compareAndSet(LoopTask.PENDING, LoopTask.FIRING)) {
                t.state.set(LoopTask.IDLE);
                t.deliver();
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
