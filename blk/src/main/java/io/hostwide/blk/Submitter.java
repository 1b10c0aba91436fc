package io.hostwide.blk;

import java.nio.ByteBuffer;

/**
 * A submitting thread's handle on one request queue: its software queue (ctx), its
 * tag wait entry and its plug. Not thread-safe: one per job thread, like a CPU's
 * current task. Implements submission as {@code blk_mq_submit_bio} does: allocate
 * (waiting for a tag unless NOWAIT), then plug, insert-and-run-async, or issue
 * directly (no scheduler and the hctx not {@code dispatch_busy}).
 */
public final class Submitter {
    /** {@code BLK_MAX_REQUEST_COUNT}. */
    static final int PLUG_MAX_COUNT = 32;
    /** {@code BLK_PLUG_FLUSH_SIZE}. */
    static final int PLUG_FLUSH_SIZE = 128 * 1024;

    final RequestQueue q;
    final Ctx ctx;
    private final TagWaiter waiter = new TagWaiter(this::flushPlug);
    private final RqList plug = new RqList();
    private boolean plugging;
    private boolean lastWasLarge;

    Submitter(RequestQueue q, Ctx ctx) {
        this.q = q;
        this.ctx = ctx;
    }

    public RequestQueue queue() {
        return q;
    }

    public Ctx ctx() {
        return ctx;
    }

    /**
     * Submits one I/O, waiting for a tag if needed. The callback runs exactly once:
     * with the device's status, OFFLINE if the queue is going away, or AGAIN if the
     * thread was interrupted while waiting for a tag (the interrupt flag stays set).
     * Arguments are checked by the caller's layer (see {@code BlockDevice}).
     */
    public void submit(ReqOp op, long offset, int length, ByteBuffer buf, IoCallback cb, long userData) {
        if (!doSubmit(op, offset, length, buf, cb, userData, false, false)) {
            cb.onComplete(userData, BlkStatus.AGAIN);
        }
    }

    /** As {@link #submit} but never waits: returns false (callback not called) when no tag is free ({@code REQ_NOWAIT}). */
    public boolean trySubmit(ReqOp op, long offset, int length, ByteBuffer buf, IoCallback cb, long userData) {
        return doSubmit(op, offset, length, buf, cb, userData, true, false);
    }

    /** As {@link #trySubmit} from the reserved tags (driver-internal commands). */
    public boolean trySubmitReserved(ReqOp op, long offset, int length, ByteBuffer buf, IoCallback cb, long userData) {
        return doSubmit(op, offset, length, buf, cb, userData, true, true);
    }

    private boolean doSubmit(ReqOp op, long offset, int length, ByteBuffer buf, IoCallback cb, long userData,
                             boolean nowait, boolean reserved) {
        if (q.isDying()) {
            cb.onComplete(userData, BlkStatus.OFFLINE);
            return true;
        }
        Hctx h = ctx.hctx;
        Request rq = TagAlloc.allocRequest(h, ctx, op, reserved, nowait, waiter);
        if (rq == null) {
            return false;
        }
        rq.op = op;
        rq.offset = offset;
        rq.length = length;
        rq.buffer = buf;
        rq.callback = cb;
        rq.userData = userData;
        rq.timeoutNanos = q.timeoutNanos;
        IoScheduler e = q.elevator;
        boolean useSched = (rq.rqFlags & Request.RQF_USE_SCHED) != 0;
        if (useSched && e != null) {
            e.prepareRequest(rq);
        }
        h.queued.inc();
        if (plugging) {
            plug.addTail(rq);
            if (plug.size() >= PLUG_MAX_COUNT || lastWasLarge) {
                flushPlug();
            }
            lastWasLarge = length >= PLUG_FLUSH_SIZE;
            return true;
        }
        boolean sync = op != ReqOp.DISCARD;
        if (useSched || (h.dispatchBusy != 0 && (q.hctxs.length == 1 || !sync))) {
            q.insertRequest(rq, false);
            Dispatcher.runHwQueue(h, true);
        } else {
            issueOne(h, rq);
        }
        return true;
    }

    /** {@code blk_start_plug}: hold submissions and send them as a batch. */
    public void startPlug() {
        plugging = true;
    }

    /** {@code blk_finish_plug}: send what the plug holds. */
    public void finishPlug() {
        flushPlug();
        plugging = false;
        lastWasLarge = false;
    }

    /** {@code blk_mq_flush_plug_list}. */
    private void flushPlug() {
        if (plug.isEmpty()) {
            return;
        }
        RqList list = new RqList();
        list.spliceTail(plug);
        Hctx h = ctx.hctx;
        if (q.elevator == null && h.dispatchBusy == 0) {
            DirectIssue.issueList(h, list);
        } else {
            for (Request rq = list.pollFirst(); rq != null; rq = list.pollFirst()) {
                q.insertRequest(rq, false);
            }
            Dispatcher.runHwQueue(h, false);
        }
    }

    private static void issueOne(Hctx h, Request rq) {
        DirectIssue.issueOne(h, rq);
    }
}
