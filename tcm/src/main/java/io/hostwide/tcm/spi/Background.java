package io.hostwide.tcm.spi;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Where the core runs work that outlives a command and must not occupy a network thread: a sanitize operation in
 * chunks (SBC-4 §4.11), an ALUA transition delay. Tasks may be scheduled from any thread; they run one at a time
 * in the order of their due times. Tests substitute a manually stepped implementation with its own clock.
 */
public interface Background extends AutoCloseable {

    /** Runs {@code task} once, no earlier than {@code delayNanos} from {@link #nanoTime()}. */
    void schedule(Runnable task, long delayNanos);

    /** The clock delays are measured on. */
    long nanoTime();

    /** Stops running tasks: scheduled ones are dropped, the one running finishes first. */
    @Override
    void close();

    /**
     * Runs a task so that what it throws reaches the thread's uncaught-exception handler: a scheduled executor keeps
     * it in a future nobody reads, so an OutOfMemoryError in a SANITIZE or an ALUA transition would vanish and leave
     * the logical unit waiting for an operation that ended (serve's handler exits then; see FatalErrors).
     */
    private static void runReportingErrors(Runnable task) {
        try {
            task.run();
        } catch (Throwable e) {
            Thread t = Thread.currentThread();
            t.getUncaughtExceptionHandler().uncaughtException(t, e);
        }
    }

    /** One daemon thread, started on first use and ended after a second idle; {@link System#nanoTime()}. */
    static Background daemon(String name) {
        ScheduledThreadPoolExecutor ex = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        ex.setKeepAliveTime(1, TimeUnit.SECONDS);
        ex.allowCoreThreadTimeOut(true);
        ex.setRemoveOnCancelPolicy(true);
        return new Background() {
            @Override
            public void schedule(Runnable task, long delayNanos) {
                ex.schedule(() -> runReportingErrors(task), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
            }

            @Override
            public long nanoTime() { return System.nanoTime(); }

            @Override
            public void close() {
                ex.shutdownNow();
                try {
                    ex.awaitTermination(5, TimeUnit.SECONDS); // the chunk in progress finishes
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }
}
