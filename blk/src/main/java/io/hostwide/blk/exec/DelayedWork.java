package io.hostwide.blk.exec;

/**
 * One re-usable work item ({@code struct delayed_work}): at most one pending
 * instance, never run concurrently with itself, re-queued after its current run
 * if scheduled while running. Creating it allocates; scheduling it does not
 * (beyond what the executor needs), so hot paths keep their items for life.
 */
public interface DelayedWork {

    /**
     * {@code queue_delayed_work}: schedules a run after {@code delayNanos} unless one
     * is already pending (a pending run keeps its time). Returns true if this call
     * made it pending.
     */
    boolean queue(long delayNanos);

    /**
     * {@code mod_delayed_work}: schedules a run after {@code delayNanos}, moving an
     * already pending run to the new time.
     */
    void mod(long delayNanos);

    /** Cancels a pending run; a run in progress finishes. Returns true if one was pending. */
    boolean cancel();

    /** True while a run is scheduled and has not started. */
    boolean isPending();

    /** When the pending run is due, on {@link Kblockd#nanoTime()}'s clock; meaningful only while pending. */
    long dueNanos();
}
