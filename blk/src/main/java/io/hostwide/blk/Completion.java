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
        RequestQueue q = rq.q;
        IoCallback cb = rq.callback;
        long ud = rq.userData;
        IoScheduler e = q.elevator;
        if (e != null && (rq.rqFlags & Request.RQF_USE_SCHED) != 0) {
            e.finishRequest(rq);
        }
        Budget.releaseOf(rq);
        free(rq);
        q.completed.inc();
        cb.onComplete(ud, status);
    }

    /** {@link #end} without the callback, for {@link CompletionBatch}. */
    static void endQuietly(Request rq) {
        RequestQueue q = rq.q;
        IoScheduler e = q.elevator;
        if (e != null && (rq.rqFlags & Request.RQF_USE_SCHED) != 0) {
            e.finishRequest(rq);
        }
        Budget.releaseOf(rq);
        free(rq);
        q.completed.inc();
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
        int hint = rq.ctx.index;
        int tag = rq.tag;
        int schedTag = rq.internalTag;
        boolean inflight = (rq.rqFlags & Request.RQF_MQ_INFLIGHT) != 0;
        Tags schedTags = h.schedTags;
        rq.tag = -1;
        rq.internalTag = -1;
        rq.rqFlags = 0;
        rq.buffer = null;
        rq.callback = null;
        rq.q = null;
        rq.setIdleNextGeneration();
        if (tag >= 0) {
            if (inflight) {
                TagAlloc.decActive(h);
            }
            h.tags.put(tag, hint);
        }
        if (schedTag >= 0) {
            schedTags.put(schedTag, hint);
        }
        Dispatcher.restart(h);
    }
}
