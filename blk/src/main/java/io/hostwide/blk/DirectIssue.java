package io.hostwide.blk;

/**
 * Direct issue ({@code blk_mq_try_issue_directly}, {@code blk_mq_issue_direct}):
 * without a scheduler and while the driver is not pushing back, a request goes
 * from the submitter straight to {@code queue_rq}, skipping the software queues.
 */
final class DirectIssue {
    private DirectIssue() {
    }

    /** One request of the calling submitter's ctx, with {@code last = true}. */
    static void issueOne(Hctx h, Request rq) {
        BlkStatus ret;
        int srcuIdx = h.enterDispatch(Hctx.ctxSlot(rq.ctx));
        try {
            ret = issue(h, rq, true, 0);
        } finally {
            h.exitDispatch(srcuIdx);
        }
        finish(h, rq, ret);
    }

    /**
     * A plug's worth of {@code ctx}'s submitter, all on the ctx's hctx; on the first refusal the rest are
     * inserted and the queue run.
     */
    static void issueList(Ctx ctx, RqList list) {
        Hctx h = ctx.hctx;
        RequestQueue q = h.q;
        BlkMqOps ops = q.set.ops;
        int queued = 0;
        Request refused = null;
        BlkStatus refusal = BlkStatus.OK;
        boolean endedOnError = false;
        int srcuIdx = h.enterDispatch(Hctx.ctxSlot(ctx));
        try {
            long now = q.kblockd.nanoTime();   // one clock read for the plug (the kernel's plug->cur_ktime)
            for (Request rq = list.pollFirst(); rq != null; rq = list.pollFirst()) {
                BlkStatus ret = issue(h, rq, list.isEmpty(), now);
                endedOnError = false;
                if (ret == BlkStatus.OK) {
                    queued++;
                } else if (ret == null || ret.isResource()) {
                    refused = rq;
                    refusal = ret;
                    break;
                } else {
                    endedOnError = true;
                    Completion.endNotStarted(rq, ret);
                }
            }
            // blk_mq_plug_issue_direct: a batch that did not end on a queued request (refused, or failed as
            // the last one) never told the driver "last", so commit_rqs does.
            if ((refused != null || endedOnError) && queued > 0) {
                ops.commitRqs(h);
            }
        } finally {
            h.exitDispatch(srcuIdx);
        }
        if (refused != null) {
            if (refusal == null) {
                q.insertRequest(refused, false);
            } else {
                q.bypassInsert(refused, false);
            }
            for (Request rq = list.pollFirst(); rq != null; rq = list.pollFirst()) {
                q.insertRequest(rq, false);
            }
            Dispatcher.runHwQueue(h, false);
        }
    }

    /**
     * {@code __blk_mq_issue_directly}; returns null when the request could not be
     * handed to the driver at all (stopped, quiesced, no budget, no driver tag).
     * Caller is inside the dispatch section.
     */
    private static BlkStatus issue(Hctx h, Request rq, boolean last, long batchNanos) {
        RequestQueue q = h.q;
        if (q.isQuiesced() || h.testState(Hctx.S_STOPPED)) {
            return null;
        }
        int token = Budget.take(h);
        if (token == Budget.NONE) {
            return null;
        }
        rq.budgetToken = token;
        if (!TagAlloc.getDriverTag(rq)) {
            Budget.releaseOf(rq);
            return null;
        }
        Ctx ctx = rq.ctx;   // read first: once queued the request may complete and be reused at once
        rq.batchNanos = batchNanos;
        BlkStatus ret = q.set.ops.queueRq(h, rq, last);
        if (ret == BlkStatus.OK) {
            ctx.countDispatched();
            Dispatcher.updateDispatchBusy(h, false);
        } else if (ret.isResource()) {
            Dispatcher.updateDispatchBusy(h, true);
            Dispatcher.handBack(rq);
        }
        return ret;
    }

    private static void finish(Hctx h, Request rq, BlkStatus ret) {
        if (ret == BlkStatus.OK) {
            return;
        }
        RequestQueue q = h.q;
        if (ret == null) {
            q.insertRequest(rq, false);
            Dispatcher.runHwQueue(h, false);
        } else if (ret.isResource()) {
            q.bypassInsert(rq, false);
            Dispatcher.runHwQueue(h, false);
        } else {
            Completion.endNotStarted(rq, ret);
        }
    }
}
