package io.hostwide.blk;

/**
 * Outcome of a request or of a driver's {@code queueRq} ({@code blk_status_t}).
 * {@link #RESOURCE} and {@link #DEV_RESOURCE} are only meaningful as a
 * {@code queueRq} return: the block layer keeps the request and retries it.
 */
public enum BlkStatus {
    OK,
    /** Out of a resource not tied to this device's completions: retry after {@code BLK_MQ_RESOURCE_DELAY}. */
    RESOURCE,
    /** Out of a device resource: a completion on this device will restart the queue. */
    DEV_RESOURCE,
    NOTSUPP,
    TIMEOUT,
    /** Would have to wait for a tag and the submitter said NOWAIT ({@code BLK_STS_AGAIN}). */
    AGAIN,
    IOERR,
    /** The device or queue is going away. */
    OFFLINE;

    /** True for the two statuses that hand the request back to the block layer. */
    public boolean isResource() {
        return this == RESOURCE || this == DEV_RESOURCE;
    }
}
