package io.hostwide.loop;

/**
 * One {@link CompletionTimer} per submit queue of an HBA, shared by its hosts as scsi_debug's per-queue
 * {@code sdebug_queue}s are: a delayed completion waits in the timer of the hardware queue its command was issued
 * on, so completions of different queues never contend on one lock or one thread, and within a queue they fire in
 * order of due time.
 */
final class CompletionTimers implements AutoCloseable {
    private final CompletionTimer[] timers;

    /** Timers named {@code prefix-q<i>-completion} for {@code queues} submit queues (threads start on first use). */
    CompletionTimers(String prefix, int queues) {
        if (queues < 1) {
            throw new IllegalArgumentException("submit queues must be >= 1, got " + queues);
        }
        timers = new CompletionTimer[queues];
        for (int i = 0; i < queues; i++) {
            timers[i] = new CompletionTimer(prefix + "-q" + i + "-completion");
        }
    }

    /** The timer of hardware queue {@code hwq} (internal commands, which have none, use queue 0). */
    CompletionTimer forQueue(int hwq) {
        return timers[Math.floorMod(hwq, timers.length)];
    }

    int size() {
        return timers.length;
    }

    /** Timer threads alive now. */
    int running() {
        int n = 0;
        for (CompletionTimer t : timers) {
            if (t.running()) {
                n++;
            }
        }
        return n;
    }

    /** Timer entries not yet fired, skipped or cancelled, over all queues. */
    int outstanding() {
        int n = 0;
        for (CompletionTimer t : timers) {
            n += t.outstanding();
        }
        return n;
    }

    /** Stops every timer; tasks still pending are delivered at once. */
    @Override
    public void close() {
        for (CompletionTimer t : timers) {
            t.close();
        }
    }
}
