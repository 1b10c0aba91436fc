package io.hostwide.blk;

/**
 * Batched completion ({@code struct io_comp_batch}, {@code blk_mq_end_request_batch}):
 * a driver adds completed requests, then {@link #complete()} frees their driver tags
 * per hctx with one {@code clearBatch} per run of consecutive same-hctx requests,
 * runs the restart once per hctx, and finally calls the submitters' callbacks.
 * Reusable; owned by one thread at a time.
 */
public final class CompletionBatch {
    /** Requests per batch, as the kernel's tag batches. */
    public static final int MAX = 32;

    private final Request[] rqs = new Request[MAX];
    private final BlkStatus[] statuses = new BlkStatus[MAX];
    private final IoCallback[] cbs = new IoCallback[MAX];
    private final long[] userData = new long[MAX];
    private final int[] bits = new int[MAX];
    private int n;

    /**
     * Wins the completion race for {@code rq} (like {@link Request#complete}) and adds
     * it; when the batch is full it is completed first. Returns false if the request
     * was not in flight (already completed or taken by the timeout path).
     */
    public boolean add(Request rq, BlkStatus status) {
        if (!rq.markComplete(-1)) {
            return false;
        }
        if (rq.flushSeq != 0 && FlushSeq.advance(rq, status)) {
            return true;   // a later stage of its flush sequence was queued on the same slot
        }
        if (n == MAX) {
            complete();
        }
        rqs[n] = rq;
        statuses[n] = status;
        n++;
        return true;
    }

    public int size() {
        return n;
    }

    /** Ends every added request. */
    public void complete() {
        int count = n;
        if (count == 0) {
            return;
        }
        n = 0;
        int direct = 0;
        for (int i = 0; i < count; i++) {
            Request rq = rqs[i];
            if (rq.nrSegs > 1) {
                // A merged request calls all its submitters itself.
                Completion.end(rq, statuses[i]);
                rqs[i] = null;
                cbs[i] = null;
                direct++;
                continue;
            }
            cbs[i] = rq.callback;
            userData[i] = rq.userData;
            // Scheduler requests, reserved tags and anything without a plain driver
            // tag take the single-request path.
            if (rq.internalTag >= 0 || rq.tag < rq.hctx.tags.nrReservedTags) {
                Completion.endQuietly(rq);
                rqs[i] = null;
                direct++;
            }
        }
        if (direct < count) {
            freeBatched(count);
        }
        for (int i = 0; i < count; i++) {
            IoCallback cb = cbs[i];
            cbs[i] = null;
            rqs[i] = null;
            BlkStatus st = statuses[i];
            statuses[i] = null;
            if (cb != null) {
                cb.onComplete(userData[i], st);
            }
        }
    }

    /** Frees the plain-driver-tag requests grouped by consecutive hctx. */
    private void freeBatched(int count) {
        int i = 0;
        while (i < count) {
            if (rqs[i] == null) {
                i++;
                continue;
            }
            Hctx h = rqs[i].hctx;
            Tags tags = h.tags;
            int nbits = 0;
            int inflightHctx = 0;
            int inflightQueue = 0;
            RequestQueue q = h.q;
            Ctx ctx = rqs[i].ctx;   // the queue's completed count is a sum over its ctxs: any of them will do
            for (; i < count && (rqs[i] == null || rqs[i].hctx == h); i++) {
                Request rq = rqs[i];
                if (rq == null) {
                    continue;
                }
                Budget.releaseOf(rq);
                if ((rq.rqFlags & Request.RQF_MQ_INFLIGHT_Q) != 0) {
                    inflightQueue++;
                } else if ((rq.rqFlags & Request.RQF_MQ_INFLIGHT) != 0) {
                    inflightHctx++;
                }
                bits[nbits++] = rq.tag - tags.nrReservedTags;
                rq.tag = -1;
                rq.rqFlags = 0;
                rq.buffer = null;
                rq.callback = null;
                rq.passthrough = null;
                rq.q = null;
                rq.setIdleNextGeneration();
            }
            if (inflightQueue > 0) {
                q.addNrActiveShared(-inflightQueue);
            }
            if (inflightHctx > 0) {
                h.addNrActive(-inflightHctx);
            }
            tags.bitmapTags.clearBatch(bits, nbits);
            ctx.countCompleted(nbits);
            Dispatcher.restart(h);
            Dispatcher.completionRun(h);
        }
    }
}
