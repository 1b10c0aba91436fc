package io.hostwide.blk;

/**
 * The driver SPI ({@code struct blk_mq_ops}). Only {@link #queueRq} is required.
 *
 * <p>Budget tokens are owned by the block layer: it takes one before dequeueing a
 * request (when {@link #hasBudget()}), stores it in the request, and returns it
 * itself when the request is handed back (RESOURCE/DEV_RESOURCE), ended with an
 * error, left over after a partial dispatch, or freed after completion. A driver
 * never calls {@link #putBudget} on its own requests.
 */
public interface BlkMqOps {

    /**
     * Issues {@code rq}; the driver calls {@link Request#start()} before handing it
     * to hardware and later {@link Request#complete(BlkStatus)} from any thread.
     *
     * @param last true when no further request follows in this batch (the driver may ring its doorbell)
     * @return OK (accepted), RESOURCE / DEV_RESOURCE (handed back, not started, or
     *         started and to be re-issued), or an error status which ends the request
     */
    BlkStatus queueRq(Hctx hctx, Request rq, boolean last);

    /** Rings the doorbell for requests queued with {@code last == false} ({@code commit_rqs}). */
    default void commitRqs(Hctx hctx) {
    }

    /**
     * Completion polling ({@code mq_ops->poll}, what {@code blk_poll}/io_uring's IOPOLL call): the submitting thread
     * reaps completions of hardware queue {@code hctx} itself instead of being woken by the driver's completion
     * context, so a completion costs one wake-up (the device's) and not two. Ends the requests it finds, on the calling
     * thread, waiting up to {@code timeoutNanos} for the device to have something. Returns how many completions it
     * processed (0 when the wait ran out), or -1 when this queue cannot be polled now (the driver does not poll,
     * or another thread is polling it): the caller then waits for its completions the ordinary way.
     */
    default int poll(Hctx hctx, long timeoutNanos) {
        return -1;
    }

    /** True if {@link #getBudget}/{@link #putBudget} are implemented (both or neither). */
    default boolean hasBudget() {
        return false;
    }

    /** A budget token (≥ 0) for one request of {@code q}, or -1 when the device is busy. */
    default int getBudget(RequestQueue q) {
        return 0;
    }

    /**
     * As {@link #getBudget(RequestQueue)}, told which hardware queue is dispatching (a driver
     * that wakes budget waiters per hctx needs it). The block layer always calls this one.
     */
    default int getBudget(Hctx hctx) {
        return getBudget(hctx.queue());
    }

    default void putBudget(RequestQueue q, int token) {
    }

    /**
     * True when the driver re-runs queues after a budget failure itself (SCSI's
     * {@code sdev->restarts}, digest §4.3/§4.6); the block layer then neither counts the
     * failure nor re-runs on release, so the driver's mechanism can be studied alone.
     */
    default boolean budgetRestartsByDriver() {
        return false;
    }

    /**
     * True when the driver takes {@link ReqOp#DRV_IN} / {@link ReqOp#DRV_OUT} requests and knows the command
     * description they carry ({@link Request#passthrough()}); otherwise such a submission ends with NOTSUPP unsent.
     */
    default boolean supportsPassthrough() {
        return false;
    }

    /** A request exceeded its deadline ({@code timeout} op); default is to let it run on. */
    default TimeoutAction timeout(Request rq) {
        return TimeoutAction.RESET_TIMER;
    }

    /** Once per preallocated request, at tag-set creation ({@code init_request}); sets {@link Request#pdu}. */
    default void initRequest(Request rq) {
    }

    /** Undoes {@link #initRequest} when a tag set is freed or its creation fails. */
    default void exitRequest(Request rq) {
    }
}
