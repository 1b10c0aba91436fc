package io.hostwide.blk.stat;

/**
 * One hardware queue, as {@code /sys/block/<dev>/mq/<n>/} and debugfs {@code hctxN/}.
 *
 * @param state         decoded state bits, e.g. {@code SCHED_RESTART|TAG_ACTIVE}
 * @param flags         decoded flags, e.g. {@code TAG_QUEUE_SHARED|TAG_HCTX_SHARED}
 * @param active        {@code nr_active} (per queue with host-wide tags)
 * @param run           times dispatch ran
 * @param queued        requests allocated on this hctx
 * @param dispatched    requests the driver accepted
 * @param dispatchList  requests waiting on {@code hctx->dispatch}
 * @param ctxMap        software queues with pending requests, as a bit string
 * @param schedTags     null with scheduler none
 */
public record HctxSnapshot(int index, int nrTags, int nrReservedTags, String state, String flags,
                           int dispatchBusy, long run, int active, long queued, long dispatched,
                           int dispatchList, String ctxMap, boolean dispatchWaitQueued,
                           TagsSnapshot tags, TagsSnapshot schedTags) {
}
