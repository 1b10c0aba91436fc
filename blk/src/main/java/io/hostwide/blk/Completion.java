package io.hostwide.blk;

/**
 * Ending and freeing requests ({@code blk_mq_end_request}, {@code __blk_mq_free_request}):
 * scheduler finish hook, budget, tags with nr_active, {@code blk_mq_sched_restart}, then
 * the submitter's callback — after the free, so a callback never holds a tag.
 */
final class Completion {
    private Completion() {
    }

    /** After a won {@link Request#markComplete}: end and free, then call the submitter. */
    static void end(Request rq, BlkStatus status) {
        if (rq.flushSeq != 0 && FlushSeq.advance(rq, status)) {
            return;   // the next stage of a flush sequence was queued on the same slot
        }
        if (rq.nrSegs > 1) {
            endMerged(rq, status);
            return;
        }
        RequestQueue q = rq.q;
        Ctx ctx = rq.ctx;   // read before the free: the slot may be reused at once
        IoCallback cb = rq.callback;
        long ud = rq.userData;
        IoScheduler e = q.elevator;
        if (e != null && (rq.rqFlags & Request.RQF_USE_SCHED) != 0) {
            e.finishRequest(rq);
        }
        Budget.releaseOf(rq);
        free(rq);
        ctx.countCompleted(1);
        cb.onComplete(ud, status);
    }

    /**
     * A merged request: every merged bio's submitter is called exactly once with the
     * request's status, after the free like a single request's. The callbacks are
     * copied out first because the slot may be reused the moment its tags are put.
     */
    private static void endMerged(Request rq, BlkStatus status) {
        SegmentCallbacks cbs = SegmentCallbacks.acquire();
        cbs.takeFrom(rq);
        endQuietly(rq);
        cbs.callAll(status);
    }

    /**
     * Frees a request that was merged into another before dispatch (the kernel's
     * {@code blk_mq_free_request} of the merged-away request): its bios now belong to
     * the survivor, so nobody is called. Never started, so no budget or driver tag.
     */
    static void freeMergedAway(Request rq) {
        free(rq);
    }

    /** {@link #end} without the callback, for {@link CompletionBatch}. */
    static void endQuietly(Request rq) {
        RequestQueue q = rq.q;
        Ctx ctx = rq.ctx;   // read before the free: the slot may be reused at once
        IoScheduler e = q.elevator;
        if (e != null && (rq.rqFlags & Request.RQF_USE_SCHED) != 0) {
            e.finishRequest(rq);
        }
        Budget.releaseOf(rq);
        free(rq);
        ctx.countCompleted(1);
    }

    /** A request the driver refused with an error before starting it ({@code blk_mq_end_request} in dispatch). */
    static void endNotStarted(Request rq, BlkStatus status) {
        int s = rq.stateAcquire();
        if ((s & Request.STATE_MASK) == Request.IN_FLIGHT && !rq.markComplete(-1)) {
            return;   // someone else completed it meanwhile
        }
        end(rq, status);
    }

    /**
     * {@code __blk_mq_free_request}: IDLE at the next generation, driver tag (with
     * nr_active) and scheduler tag returned, then {@code blk_mq_sched_restart}.
     * Nothing of {@code rq} is touched after its tags are put: it may be reused at once.
     */
    static void free(Request rq) {
        Hctx h = rq.hctx;
        int hint = rq.allocHint;
        int tag = rq.tag;
        int schedTag = rq.internalTag;
        int rqFlags = rq.rqFlags;
        Tags schedTags = h.schedTags;
        rq.tag = -1;
        rq.internalTag = -1;
        rq.rqFlags = 0;
        if (rq.nrSegs > 1) {
            Merge.clearSegments(rq);
        }
        rq.buffer = null;
        rq.callback = null;
        rq.passthrough = null;
        rq.q = null;
        rq.setIdleNextGeneration();
        if (tag >= 0) {
            if ((rqFlags & Request.RQF_MQ_INFLIGHT) != 0) {
                TagAlloc.decActive(h, rqFlags);
            }
            h.tags.put(tag, hint);
        }
        if (schedTag >= 0) {
            schedTags.put(schedTag, hint);
        }
        Dispatcher.restart(h);
        Dispatcher.completionRun(h);
    }
}
