package io.hostwide.scsi.mid;

/**
 * How a LUN whose budget ran out gets its queues re-run (seed 003, digest §4.3, §4.6).
 */
public enum RestartPolicy {
    /**
     * The kernel's mechanism: a failed {@code get_budget} increments {@code sdev->restarts} (full barrier), and if
     * the LUN is idle schedules a 3 ms delayed run of all hardware queues; every completion, after returning its
     * budget, CASes a non-zero {@code restarts} to 0 and the winner re-runs <em>all</em> hardware queues of the LUN.
     */
    KERNEL,
    /**
     * Per-hctx budget waiters: a failed {@code get_budget} sets its hctx's bit in the LUN's waiter map (full
     * barrier) and re-tries once; every budget release (full barrier) wakes <em>one</em> waiting hctx that has
     * work, instead of all hardware queues. See {@link BudgetWaiters} for why no wake-up is lost.
     */
    WAKE_ONE;

    public static RestartPolicy parse(String s) {
        return switch (s.toLowerCase(java.util.Locale.ROOT)) {
            case "kernel", "restarts" -> KERNEL;
            case "wake_one", "wake-one", "waiters" -> WAKE_ONE;
            default -> throw new IllegalArgumentException("restart_policy must be kernel or wake_one, got '" + s + "'");
        };
    }
}
