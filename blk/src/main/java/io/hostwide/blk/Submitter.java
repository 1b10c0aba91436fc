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
    /**
     * This submitter's alloc-hint slot in the tag bitmaps ({@link TagSet#nextAllocHint}). The kernel's hints
     * are per CPU and two tasks on one CPU never allocate at the same time; here the submitting thread plays the
     * CPU, so each submitter has its own slot rather than its ctx index: on a shared tag set, ctx i of every
     * queue would otherwise share slot i, and their job threads would all start on one word and write one hint
     * line concurrently.
     */
    final int allocHint;
    private final TagWaiter waiter = new TagWaiter(this::flushPlug);
    private final RqList plug = new RqList();
    /** The submission being merged; reused, so nothing is allocated per I/O. */
    private final Bio bio = new Bio();
    private boolean plugging;
    /** The command of the passthrough being submitted (one at a time: this submitter's thread only). */
    private Object pendingPassthrough;
    private boolean lastWasLarge;

    Submitter(RequestQueue q, Ctx ctx) {
        this.q = q;
        this.ctx = ctx;
        this.allocHint = q.set.nextAllocHint();
    }

    public RequestQueue queue() {
        return q;
    }

    public Ctx ctx() {
        return ctx;
    }

    /**
     * {@code blk_poll} on this submitter's hardware queue: see {@link BlkMqOps#poll}. Completions found end on this
     * thread, their callbacks included; -1 means "not polled, wait for completions".
     */
    public int poll(long timeoutNanos) {
        return q.set.ops.poll(ctx.hctx, timeoutNanos);
    }

    /**
     * Submits one I/O, waiting for a tag if needed. The callback runs exactly once:
     * with the device's status, OFFLINE if the queue is going away, or AGAIN if the
     * thread was interrupted while waiting for a tag (the interrupt flag stays set).
     * Arguments are checked by the caller's layer (see {@code BlockDevice}).
     */
    public void submit(ReqOp op, long offset, int length, ByteBuffer buf, IoCallback cb, long userData) {
        submit(op, 0, offset, length, buf, cb, userData);
    }

    /** {@link #submit} with {@link ReqFlags} (FUA, PREFLUSH on a WRITE), checked by {@link ReqFlags#check}. */
    public void submit(ReqOp op, int flags, long offset, int length, ByteBuffer buf, IoCallback cb, long userData) {
        if (Split.needed(q, op, length)) {
            splitSubmit(op, flags, offset, length, buf, cb, userData, false);
        } else if (!doSubmit(op, flags, offset, length, buf, cb, userData, false, false)) {
            cb.onComplete(userData, BlkStatus.AGAIN);
        }
    }

    /**
     * As {@link #submit} but never waits: returns false (callback not called) when no tag is free ({@code REQ_NOWAIT}).
     * A bio that must be split returns false only when its first piece gets no tag; if a later piece gets none,
     * the callback reports AGAIN once the pieces already sent have ended.
     */
    public boolean trySubmit(ReqOp op, long offset, int length, ByteBuffer buf, IoCallback cb, long userData) {
        return trySubmit(op, 0, offset, length, buf, cb, userData);
    }

    /** {@link #trySubmit} with {@link ReqFlags}. */
    public boolean trySubmit(ReqOp op, int flags, long offset, int length, ByteBuffer buf, IoCallback cb,
                             long userData) {
        if (Split.needed(q, op, length)) {
            return splitSubmit(op, flags, offset, length, buf, cb, userData, true);
        }
        return doSubmit(op, flags, offset, length, buf, cb, userData, true, false);
    }

    /**
     * {@code bio_split_to_limits} + {@code bio_chain}: sends the bio as pieces within the queue limits, each a
     * request of its own, completing into one {@link SplitParent}. The pieces view the caller's buffer (no copy).
     */
    private boolean splitSubmit(ReqOp op, int flags, long offset, int length, ByteBuffer buf, IoCallback cb,
                                long userData, boolean nowait) {
        SplitParent parent = new SplitParent(cb, userData);
        int done = 0;
        int piece = 0;
        while (done < length) {
            long at = offset + done;
            int n = Split.pieceLength(q, op, at, length - done);
            ByteBuffer slice = buf == null ? null : buf.slice(buf.position() + done, n);
            parent.addPiece();
            // PREFLUSH belongs to the first piece only; FUA to every piece.
            int f = done == 0 ? flags : flags & ~ReqFlags.PREFLUSH;
            if (!doSubmit(op, f, at, n, slice, parent, piece, nowait, false)) {
                if (nowait && done == 0) {
                    return false;   // nothing was sent; the parent is dropped without calling anyone
                }
                parent.onComplete(piece, BlkStatus.AGAIN);   // this piece and the rest are never sent
                break;
            }
            done += n;
            piece++;
        }
        q.splits.inc();
        parent.sent();
        return true;
    }

    /**
     * A passthrough request ({@code blk_execute_rq_nowait} of a {@code REQ_OP_DRV_*} request): {@code cmd} is the
     * driver's command description, {@code buf} (position .. +length) its data; it waits for a tag, skips merging,
     * splitting, plugging and the scheduler, and goes to the hardware queue's dispatch list. Ends with NOTSUPP
     * unsent when the driver takes no passthrough, and with IOERR unsent when the data exceeds
     * {@code max_hw_sectors} (a passthrough is never split).
     */
    public void submitPassthrough(ReqOp op, Object cmd, ByteBuffer buf, int length, IoCallback cb, long userData) {
        if (!op.isPassthrough() || cmd == null) {
            throw new IllegalArgumentException("passthrough needs DRV_IN or DRV_OUT and a command, got " + op);
        }
        if (!q.set.ops.supportsPassthrough()) {
            cb.onComplete(userData, BlkStatus.NOTSUPP);
            return;
        }
        if (length > q.limits.maxHwSectors * 512L) {
            cb.onComplete(userData, BlkStatus.IOERR);
            return;
        }
        pendingPassthrough = cmd;
        try {
            if (!doSubmit(op, 0, 0, length, buf, cb, userData, false, false)) {
                cb.onComplete(userData, BlkStatus.AGAIN);
            }
        } finally {
            pendingPassthrough = null;
        }
    }

    /** As {@link #trySubmit} from the reserved tags (driver-internal commands). */
    public boolean trySubmitReserved(ReqOp op, long offset, int length, ByteBuffer buf, IoCallback cb, long userData) {
        return doSubmit(op, 0, offset, length, buf, cb, userData, true, true);
    }

    private boolean doSubmit(ReqOp op, int flags, long offset, int length, ByteBuffer buf, IoCallback cb,
                             long userData, boolean nowait, boolean reserved) {
        if (q.isDying()) {
            cb.onComplete(userData, BlkStatus.OFFLINE);
            return true;
        }
        int entered = enterQueue();
        if (entered != ENTERED) {
            if (entered == DYING) {
                cb.onComplete(userData, BlkStatus.OFFLINE);
                return true;
            }
            return false;   // interrupted while the queue was frozen
        }
        try {
            return submitEntered(op, flags, offset, length, buf, cb, userData, nowait, reserved);
        } finally {
            ctx.exitQueue();
        }
    }

    private static final int ENTERED = 0;
    private static final int INTERRUPTED = 1;
    private static final int DYING = 2;

    /**
     * {@code bio_queue_enter}: counts this submitter in its ctx unless the queue is
     * frozen; then it flushes its plug (plugged requests hold tags the freeze waits
     * for, as the kernel flushes the plug when the task sleeps) and waits.
     */
    private int enterQueue() {
        for (;;) {
            ctx.enterQueue();
            if (!q.freeze.isFrozen()) {
                return ENTERED;
            }
            ctx.exitQueue();
            flushPlug();
            if (!q.freeze.waitUnfrozen()) {
                return q.isDying() ? DYING : INTERRUPTED;
            }
        }
    }

    private boolean submitEntered(ReqOp op, int flags, long offset, int length, ByteBuffer buf, IoCallback cb,
                                  long userData, boolean nowait, boolean reserved) {
        int policy = 0;
        int flushFlags = flags & ~ReqFlags.NOMERGE;   // NOMERGE only keeps the request apart, below
        if (flushFlags != 0 || op == ReqOp.FLUSH) {
            policy = FlushSeq.policy(q, op, flushFlags);
            if (policy == 0) {
                cb.onComplete(userData, BlkStatus.OK);   // a FLUSH with no volatile cache to flush
                return true;
            }
        }
        if (!reserved && op.hasData() && flags == 0 && q.nomerges != 2) {   // any flag, NOMERGE too, keeps it apart
            bio.set(op, offset, length, buf, cb, userData);
            boolean merged = attemptMerge();
            bio.set(null, 0, 0, null, null, 0);
            if (merged) {
                return true;
            }
        }
        Hctx h = ctx.hctx;
        Request rq = TagAlloc.allocRequest(h, ctx, allocHint, op, reserved, nowait, waiter);
        if (rq == null) {
            return false;
        }
        rq.op = op;
        rq.offset = offset;
        rq.length = length;
        rq.buffer = buf;
        rq.seg0Len = length;
        rq.nrSegs = 1;
        rq.nrPhysSegs = Split.physSegments(q, length);
        rq.callback = cb;
        rq.userData = userData;
        rq.timeoutNanos = q.timeoutNanos;
        // a nonzero cmdFlags makes the request no merge target (Merge.rqMergeable), as REQ_NOMERGE_FLAGS do
        rq.cmdFlags = (flushFlags == 0 ? 0 : FlushSeq.dataFlags(q, flushFlags)) | (flags & ReqFlags.NOMERGE);
        rq.flushSeq = 0;
        rq.passthrough = null;
        if (flushFlags != 0 && FlushSeq.sequenced(policy)) {
            issueSequenced(h, rq, policy);
            return true;
        }
        if (op.isPassthrough()) {
            rq.passthrough = pendingPassthrough;
            bypassIssue(h, rq);
            return true;
        }
        IoScheduler e = q.elevator;
        boolean useSched = (rq.rqFlags & Request.RQF_USE_SCHED) != 0;
        if (useSched && e != null) {
            e.prepareRequest(rq);
        }
        ctx.countQueued();
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

    /**
     * {@code blk_insert_flush}: a request that needs a PREFLUSH or POSTFLUSH stage bypasses the plug and the
     * scheduler and goes to its hardware queue's dispatch list showing its first stage ({@link FlushSeq}).
     */
    private void issueSequenced(Hctx h, Request rq, int policy) {
        flushPlug();   // earlier plugged writes go first, as the kernel flushes the plug before a flush
        rq.flushSeq = policy;
        rq.op = FlushSeq.stageOp(policy);
        bypassIssue(h, rq);
    }

    /** {@code blk_mq_request_bypass_insert} + run: past the plug and the scheduler, to the dispatch list. */
    private void bypassIssue(Hctx h, Request rq) {
        rq.rqFlags &= ~Request.RQF_USE_SCHED;
        ctx.countQueued();
        q.bypassInsert(rq, false);
        Dispatcher.runHwQueue(h, false);
    }

    /**
     * {@code blk_mq_attempt_bio_merge} (digest §2.8 step 3): the most recently plugged
     * request ({@code blk_attempt_plug_merge}), then the scheduler's {@code bio_merge},
     * or without one the last few requests of this ctx's list.
     */
    private boolean attemptMerge() {
        if (plugging) {
            Request last = plug.peekLast();
            if (last != null) {
                int where = Merge.tryMerge(last, bio);
                if (where != Merge.NONE) {
                    Merge.apply(last, bio, where);
                    return true;
                }
            }
        }
        IoScheduler e = q.elevator;
        if (e != null) {
            return e.bioMerge(ctx.hctx, bio);
        }
        return ctx.bioMerge(bio);
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
            DirectIssue.issueList(ctx, list);
        } else {
            IoScheduler e = q.elevator;
            if (e != null && allUseSched(list)) {
                e.insertRequests(h, list);
            } else {
                for (Request rq = list.pollFirst(); rq != null; rq = list.pollFirst()) {
                    q.insertRequest(rq, false);
                }
            }
            Dispatcher.runHwQueue(h, false);
        }
    }

    /** Plugged requests allocated under the current scheduler (always so: a switch waits for plugs to drain). */
    private static boolean allUseSched(RqList list) {
        for (Request rq = list.peekFirst(); rq != null; rq = rq.next) {
            if ((rq.rqFlags & Request.RQF_USE_SCHED) == 0) {
                return false;
            }
        }
        return true;
    }

    private static void issueOne(Hctx h, Request rq) {
        DirectIssue.issueOne(h, rq);
    }
}
