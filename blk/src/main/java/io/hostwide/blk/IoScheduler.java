package io.hostwide.blk;

/**
 * The I/O scheduler SPI ({@code struct elevator_mq_ops}). {@code none} is the
 * absence of a scheduler (the fast path); a scheduler instance serves one request
 * queue. Requests reach it with a scheduler tag only ({@link Request#internalTag()});
 * the driver tag is taken at dispatch, where fair sharing applies.
 *
 * <p>Locking is the scheduler's own: {@link #insert}, {@link #dispatch} and
 * {@link #hasWork} are called concurrently from submitters and kblockd.
 */
public interface IoScheduler {

    /** The name shown in {@code queue/scheduler}. */
    String name();

    /** Attached to {@code q} (queue idle); allocate per-queue state here. */
    default void init(RequestQueue q) {
    }

    /** Detached (queue idle). */
    default void exit(RequestQueue q) {
    }

    /**
     * {@code limit_depth}: a shallow depth (in scheduler-tag bits) for allocating a
     * request of {@code op}, e.g. mq-deadline's {@code async_depth}; 0 for no limit.
     * Must be ≥ {@link #minShallowDepth()} when non-zero.
     */
    default int limitDepth(ReqOp op) {
        return 0;
    }

    /** The smallest non-zero {@link #limitDepth} will return ({@code sbitmap_queue_min_shallow_depth}); 0 if none. */
    default int minShallowDepth() {
        return 0;
    }

    /** {@code depth_updated}: scheduler-tag depth is now {@code nrRequests}. */
    default void depthUpdated(RequestQueue q, int nrRequests) {
    }

    /** {@code prepare_request}: a request was allocated for this scheduler. */
    default void prepareRequest(Request rq) {
    }

    /**
     * {@code bio_merge}: try to merge {@code bio} into a request the scheduler holds
     * (back or front, per {@link RequestQueue#nomerges()}); true when merged, and then
     * the bio's callback runs when that request completes. Called before a request is
     * allocated for the bio.
     */
    default boolean bioMerge(Hctx hctx, Bio bio) {
        return false;
    }

    /** The names of the scheduler's {@code queue/iosched/} attributes. */
    default java.util.List<String> attributeNames() {
        return java.util.List.of();
    }

    /** Reads {@code queue/iosched/<name>}. */
    default String attribute(String name) {
        throw new IllegalArgumentException(name() + " has no attribute '" + name + "'");
    }

    /** Writes {@code queue/iosched/<name>} at run time; bad names or values throw {@link IllegalArgumentException}. */
    default void setAttribute(String name, String value) {
        throw new IllegalArgumentException(name() + " has no attribute '" + name + "'");
    }

    /** {@code insert_requests}: take ownership of {@code rq} (at the head when requeued). */
    void insert(Hctx hctx, Request rq, boolean atHead);

    /**
     * {@code insert_requests} with a list (a plug flush), all of {@code hctx}, in
     * order; the list is left empty. The default inserts one at a time; a scheduler
     * with one lock may take it once for the whole list.
     */
    default void insertRequests(Hctx hctx, RqList list) {
        for (Request rq = list.pollFirst(); rq != null; rq = list.pollFirst()) {
            insert(hctx, rq, false);
        }
    }

    /** {@code dispatch_request}: the next request to send to {@code hctx}'s driver, or null. */
    Request dispatch(Hctx hctx);

    /** {@code has_work}: cheap, lock-free if possible; may be racy but must not miss work for ever. */
    boolean hasWork(Hctx hctx);

    /** {@code finish_request}: the request completed (or failed) and is about to be freed. */
    default void finishRequest(Request rq) {
    }

    /** {@code requeue_request}: the request comes back for re-issue. */
    default void requeueRequest(Request rq) {
    }

    /** True for queue-wide schedulers ({@code QUEUE_FLAG_SQ_SCHED}, mq-deadline). */
    default boolean singleQueue() {
        return false;
    }
}
