package io.hostwide.blk;

/**
 * The flush state machine (block/blk-flush.c, digest §2.8 step 5). A WRITE with {@link ReqFlags#PREFLUSH} or
 * {@link ReqFlags#FUA} runs as up to three stages on one request slot, which keeps its tag between them (the kernel's
 * flush request borrows the data request's tag in the same way):
 * <ol>
 *   <li>PREFLUSH — the request goes to the driver as a FLUSH;</li>
 *   <li>DATA — as the WRITE, carrying FUA when the queue supports it;</li>
 *   <li>POSTFLUSH — as a FLUSH again, for FUA on a queue without FUA support.</li>
 * </ol>
 * The policy ({@code blk_flush_policy}): without a volatile write cache both flags are dropped (a bare FLUSH ends at
 * once, OK, unsent); with one, PREFLUSH adds the first stage and FUA either stays on the data stage or becomes the
 * POSTFLUSH stage. A request with only the DATA stage takes the ordinary path. Sequenced requests skip the
 * scheduler and go to the hardware queue's dispatch list. Each stage is a fresh issue to the driver (its
 * preparation is redone); the submitter's callback runs once, after the last stage or the first failing one.
 */
final class FlushSeq {
    static final int PREFLUSH = 1;
    static final int DATA = 2;
    static final int POSTFLUSH = 4;

    private FlushSeq() {
    }

    /** {@code blk_flush_policy}: the stages a request of {@code op} with {@code flags} needs on {@code q}. */
    static int policy(RequestQueue q, ReqOp op, int flags) {
        int p = op == ReqOp.FLUSH ? 0 : DATA;
        if (q.limits.writeCache) {
            if ((flags & ReqFlags.PREFLUSH) != 0 || op == ReqOp.FLUSH) {
                p |= PREFLUSH;
            }
            if ((flags & ReqFlags.FUA) != 0 && !q.limits.fua) {
                p |= POSTFLUSH;
            }
        }
        return p;
    }

    /** The flags the data stage carries: FUA only when the queue has a write cache and supports it. */
    static int dataFlags(RequestQueue q, int flags) {
        return q.limits.writeCache && q.limits.fua ? flags & ReqFlags.FUA : 0;
    }

    /** True when a policy needs the sequence (more than the data stage alone). */
    static boolean sequenced(int policy) {
        return (policy & (PREFLUSH | POSTFLUSH)) != 0 && (policy & DATA) != 0;
    }

    /** The op the request shows the driver at its current stage. */
    static ReqOp stageOp(int seq) {
        return (Integer.lowestOneBit(seq) == DATA) ? ReqOp.WRITE : ReqOp.FLUSH;
    }

    /**
     * A won completion of a sequenced request: if a later stage remains and this one succeeded, the request goes
     * back for it (true: nobody is called yet); otherwise the sequence is over and the caller ends the request.
     */
    static boolean advance(Request rq, BlkStatus status) {
        int seq = rq.flushSeq & ~Integer.lowestOneBit(rq.flushSeq);
        if (status != BlkStatus.OK || seq == 0) {
            rq.flushSeq = 0;
            rq.op = ReqOp.WRITE;
            return false;
        }
        rq.flushSeq = seq;
        rq.op = stageOp(seq);
        rq.rqFlags &= ~Request.RQF_DONTPREP;
        RequestQueue q = rq.q;
        Hctx h = rq.hctx;
        q.flushStages.inc();
        Dispatcher.handBack(rq);
        q.bypassInsert(rq, true);
        // rq may be dispatched and freed by another thread from here on: only h is used.
        Dispatcher.runHwQueue(h, true);
        return true;
    }
}
