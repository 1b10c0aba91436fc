package io.hostwide.loop;

import java.util.concurrent.DelayQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The delayed completions of one submit queue ({@code delay}/{@code ndelay}, scsi_debug's per-queue hrtimers): a
 * thread takes each due {@link LoopTask} off this queue's delay queue, in order of due time, and completes it, so
 * the submitting thread never waits and no thread sleeps per command. A task an abort took away is skipped: the
 * {@link LoopTask#state} CAS from PENDING to FIRING decides between this timer, abort/reset and {@link #close},
 * so each command is delivered at most once from here.
 *
 * <p>The thread starts with the first delayed completion, so an HBA that runs with {@code delay=0} has none.
 * {@link #close} stops it and delivers whatever is still pending at once (the HBA closes its disks first, which
 * waits for their I/O, so normally nothing is).
 */
final class CompletionTimer implements AutoCloseable {
    private final DelayQueue<LoopTask> queue = new DelayQueue<>();
    private final String name;
    /** Written under {@code this}; read without it on the schedule path once set. */
    private volatile Thread thread;
    private volatile boolean closed;
    /** Entries scheduled and not yet handled: fired (delivered or skipped), cancelled, or drained. */
    private final AtomicInteger outstanding = new AtomicInteger();

    CompletionTimer(String name) {
        this.name = name;
    }

    String name() {
        return name;
    }

    void schedule(LoopTask t, long delayNanos) {
        t.dueNanos = System.nanoTime() + delayNanos;
        outstanding.incrementAndGet();
        if (thread == null) {
            start();
        }
        queue.add(t);
        // Dekker with close(): it writes closed then drains the queue; we added then read closed. Either its drain
        // sees our task or we see closed and drain it ourselves (the state CAS keeps the delivery single).
        if (closed) {
            drain();
        }
    }

    private synchronized void start() {
        if (thread == null && !closed) {
            thread = Thread.ofPlatform().daemon().name(name).start(this::run);
        }
    }

    /** Removes a pending task (abort/reset); the caller has already moved its state to ABORTED. */
    void cancel(LoopTask t) {
        if (queue.remove(t)) {
            outstanding.decrementAndGet();
        }
    }

    /**
     * Entries not yet handled (tests): 0 means every entry this timer took was fired, skipped or cancelled — a
     * positive signal that an entry an abort missed had its chance to deliver twice.
     */
    int outstanding() {
        return outstanding.get();
    }

    private void run() {
        while (!closed) {
            LoopTask t;
            try {
                t = queue.take();
            } catch (InterruptedException e) {
                continue;   // close() interrupts; the loop condition sees closed
            }
            fire(t);
            outstanding.decrementAndGet();
        }
    }

    private static void fire(LoopTask t) {
        if (t.state.compareAndSet(LoopTask.PENDING, LoopTask.FIRING)) {
            t.state.set(LoopTask.IDLE);
            t.deliver();
        }
    }

    /** Delivers every task still queued, due or not (shutdown). */
    private void drain() {
        // poll()/drainTo() hand out only expired tasks: take each by identity instead.
        while (!queue.isEmpty()) {
            for (LoopTask t : queue.toArray(new LoopTask[0])) {
                if (queue.remove(t)) {
                    fire(t);
                    outstanding.decrementAndGet();
                }
            }
        }
    }

    /** True while the timer thread runs (tests: no thread outlives {@link #close}). */
    boolean running() {
        Thread th = thread;
        return th != null && th.isAlive();
    }

    @Override
    public void close() {
        Thread th;
        synchronized (this) {
            closed = true;
            th = thread;
        }
        if (th != null) {
            th.interrupt();
            try {
                th.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        drain();
    }
}
