package io.hostwide.blk;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * One preallocated request slot ({@code struct request}), bound for life to one
 * tag of one {@link Tags} pool and reused by every I/O that gets that tag.
 *
 * <h2>State</h2>
 * {@code state} packs the kernel's {@code rq->state} (IDLE / IN_FLIGHT / COMPLETE),
 * the {@code RQF_TIMED_OUT} flag and a generation that advances on every free, so a
 * late completion of a previous use can be told apart ({@link #completeIfGeneration}).
 * Completion is a CAS IN_FLIGHT→COMPLETE racing the timeout path: exactly one
 * caller ends the request.
 */
public final class Request {
    static final int IDLE = 0;
    static final int IN_FLIGHT = 1;
    static final int COMPLETE = 2;
    static final int STATE_MASK = 3;
    static final int TIMED_OUT = 4;
    static final int GEN_UNIT = 8;

    // rq_flags
    static final int RQF_SCHED_TAGS = 1;
    static final int RQF_MQ_INFLIGHT = 2;
    static final int RQF_DONTPREP = 4;
    static final int RQF_RESERVED = 8;
    static final int RQF_USE_SCHED = 16;
    /** Handed to the driver at least once ({@code RQF_STARTED}); such a request never takes merges. */
    static final int RQF_STARTED = 32;
    /** With RQF_MQ_INFLIGHT: counted in the queue's shared-tags {@code nr_active}, not the hctx's. */
    static final int RQF_MQ_INFLIGHT_Q = 64;

    /**
     * Segments one request can carry: the capacity of its segment arrays. The queue's
     * {@code max_segments} limit is at most this.
     */
    public static final int MAX_SEGMENTS = 32;

    private static final VarHandle STATE;
    private static final java.util.concurrent.atomic.AtomicLong NEXT_SLOT_ID = new java.util.concurrent.atomic.AtomicLong();

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Request.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The pool that owns this slot (driver tags without a scheduler, else the scheduler tags). */
    final Tags pool;
    /** This slot's index in {@link #pool}, which is the tag it is allocated with. */
    final int poolTag;

    int tag = -1;
    int internalTag = -1;
    int rqFlags;
    int budgetToken = -1;
    RequestQueue q;
    Ctx ctx;
    Hctx hctx;

    ReqOp op;
    /** Device offset of the first segment (the request's start sector, in bytes). */
    long offset;
    /** Total bytes over all segments ({@code blk_rq_bytes}). */
    int length;
    /** Segment 0: buffer, length, submitter callback and user data (the request's first bio). */
    ByteBuffer buffer;
    int seg0Len;
    IoCallback callback;
    long userData;
    /** Segments in use (≥ 1); segments 1.. live in the arrays below at index - 1. */
    int nrSegs = 1;
    /** Physical segments of {@code max_segment_size} over all bios ({@code rq->nr_phys_segments}). */
    int nrPhysSegs = 1;
    /** {@link ReqFlags} the driver must honour at this stage (FUA on the data stage). */
    int cmdFlags;
    /** {@link FlushSeq} stages still to run, the current one lowest; 0 for an ordinary request. */
    int flushSeq;
    /** The driver's command description of a DRV_IN/DRV_OUT request (the submitter's object), else null. */
    Object passthrough;
    /** Extra segments of merged bios, allocated on this slot's first merge and kept for its life. */
    ByteBuffer[] segBuf;
    int[] segLen;
    IoCallback[] segCb;
    long[] segUd;
    long timeoutNanos;
    /** Written before the release CAS in {@link #start()}, read after the acquire read of state. */
    long deadline;
    /**
     * The clock as read once for the whole dispatch batch this request is being issued in, for
     * {@link #start()}; 0 when the issuer read none (start reads the clock then). Set by the block layer right
     * before every {@code queue_rq} and consumed by start() inside it, on the dispatching thread.
     */
    long batchNanos;
    /**
     * The alloc-hint slot of the submitter that allocated the request (its "CPU" for the tag bitmaps): tags
     * are taken from it and the freed tag is put back into it, as the kernel passes {@code ctx->cpu}.
     */
    int allocHint;
    /** Intrusive link for {@link RqList}. */
    Request next;
    /** A second link the driver may use for its own lists while it owns the request. */
    public Request driverNext;
    /** Driver-private data set by {@link BlkMqOps#initRequest} ({@code cmd_size} PDU). */
    public Object pdu;
    /** Elevator-private data, set by the scheduler while it holds the request. */
    public Object elvPriv;
    /** Elevator-private numbers (FIFO deadline, sort key …). */
    public long elvKey;
    /** Elevator links, used by the scheduler that holds the request (under its lock). */
    Request fifoPrev;
    Request fifoNext;
    Request sortLeft;
    Request sortRight;
    Request hashNext;
    /** Treap priority for the sort tree: fixed per slot, pseudo-random. */
    final int sortPrio;
    /** Unique per slot: orders requests with the same start in the sort tree. */
    final long slotId;
    /** mq-deadline {@code fifo_time}: when this request expires, on the kblockd clock. */
    long fifoTime;
    /** The end the request was hashed under ({@code rq_hash_key} at insertion). */
    long hashKey;

    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;

    Request(Tags pool, int poolTag) {
        this.pool = pool;
        this.poolTag = poolTag;
        this.slotId = NEXT_SLOT_ID.getAndIncrement();
        this.sortPrio = mix((int) (slotId * 0x9E3779B9L));
    }

    private static int mix(int x) {
        x ^= x >>> 16;
        x *= 0x7feb352d;
        x ^= x >>> 15;
        x *= 0x846ca68b;
        return x ^ (x >>> 16);
    }

    public ReqOp op() {
        return op;
    }

    /** Byte offset on the device. */
    public long offset() {
        return offset;
    }

    /** Bytes to transfer (or to discard). */
    public int length() {
        return length;
    }

    /**
     * The first segment's buffer: with one segment the data lives at
     * {@code buffer.position() .. +length}. A merged request has several segments:
     * use {@link #nrSegments()}, {@link #segmentBuffer} and {@link #segmentLength}.
     * Positions are never moved.
     */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** Segments (merged bios) this request carries, ≥ 1; their device ranges are contiguous from {@link #offset()}. */
    public int nrSegments() {
        return nrSegs;
    }

    /** Segment {@code i}'s buffer (data at its position .. +{@link #segmentLength}). */
    public ByteBuffer segmentBuffer(int i) {
        checkSeg(i);
        return i == 0 ? buffer : segBuf[i - 1];
    }

    /** Segment {@code i}'s byte count. */
    public int segmentLength(int i) {
        checkSeg(i);
        return i == 0 ? seg0Len : segLen[i - 1];
    }

    /** Device end of the request ({@code blk_rq_pos + blk_rq_sectors}, in bytes). */
    public long end() {
        return offset + length;
    }

    private void checkSeg(int i) {
        if (i < 0 || i >= nrSegs) {
            throw new IndexOutOfBoundsException("segment " + i + " of " + nrSegs);
        }
    }

    /** {@link ReqFlags} of this request ({@code rq->cmd_flags}): FUA when the write must be durable on completion. */
    public int cmdFlags() {
        return cmdFlags;
    }

    /** True for a WRITE the device must make durable before completing it ({@code REQ_FUA}). */
    public boolean isFua() {
        return op == ReqOp.WRITE && (cmdFlags & ReqFlags.FUA) != 0;   // a flush stage of the same slot carries none
    }

    /**
     * The command description of a {@link ReqOp#DRV_IN}/{@link ReqOp#DRV_OUT} request, as the submitter gave it
     * (for a SCSI disk, its CDB and the place for the status and sense); null for any other op.
     */
    public Object passthrough() {
        return passthrough;
    }

    /** Driver tag, or -1. */
    public int tag() {
        return tag;
    }

    /** Scheduler tag, or -1. */
    public int internalTag() {
        return internalTag;
    }

    /** {@code blk_mq_unique_tag}: (hardware queue << 16) | tag. */
    public int uniqueTag() {
        return (hctx.queueNum << 16) | (tag & 0xffff);
    }

    public RequestQueue queue() {
        return q;
    }

    public Hctx hctx() {
        return hctx;
    }

    /** The software queue the request was allocated on (its submitter's, {@code rq->mq_ctx}). */
    public Ctx ctx() {
        return ctx;
    }

    public boolean isReserved() {
        return (rqFlags & RQF_RESERVED) != 0;
    }

    /** Marks the request as prepared by the driver ({@code RQF_DONTPREP}); a requeue keeps it so. */
    public void setDontPrep() {
        rqFlags |= RQF_DONTPREP;
    }

    public boolean isDontPrep() {
        return (rqFlags & RQF_DONTPREP) != 0;
    }

    /** The generation of the current use; pass it to {@link #completeIfGeneration}. */
    public int generation() {
        return stateAcquire() >>> 3;
    }

    public boolean isInFlight() {
        return (stateAcquire() & STATE_MASK) == IN_FLIGHT;
    }

    public boolean isTimedOut() {
        return (stateAcquire() & TIMED_OUT) != 0;
    }

    /** Deadline on the tag set's clock, while in flight. */
    public long deadline() {
        return deadline;
    }

    /** Per-request timeout in nanoseconds (defaults to the queue's). */
    public void setTimeoutNanos(long nanos) {
        if (nanos <= 0) {
            throw new IllegalArgumentException("timeout must be > 0 ns, got " + nanos);
        }
        timeoutNanos = nanos;
    }

    /**
     * {@code blk_mq_start_request}: IDLE → IN_FLIGHT, arms the deadline. The driver
     * calls this once in {@link BlkMqOps#queueRq} before the device can complete it.
     */
    public void start() {
        int s = stateAcquire();
        if ((s & STATE_MASK) != IDLE) {
            throw new IllegalStateException("start() on a request that is not idle (state=" + (s & STATE_MASK) + ")");
        }
        // The kernel arms the deadline from jiffies and takes io_start_time from the plug's cached clock
        // (blk_time_get_ns), never reading the clock per request; here one read per dispatch batch.
        long now = batchNanos;
        batchNanos = 0;
        deadline = (now != 0 ? now : q.kblockd.nanoTime()) + timeoutNanos;
        rqFlags |= RQF_STARTED;
        // Release: publishes deadline; pairs with the acquire read of state in the timeout scan.
        STATE.setRelease(this, (s & ~STATE_MASK) | IN_FLIGHT);
        q.timeouts.addTimer(deadline);
    }

    /**
     * {@code blk_mq_complete_request} + end: completes the current use with
     * {@code status}. Returns false (and does nothing) if the request is not in
     * flight, i.e. it already completed or the timeout path completed it.
     */
    public boolean complete(BlkStatus status) {
        if (!markComplete(-1)) {
            return false;
        }
        Completion.end(this, status);
        return true;
    }

    /** As {@link #complete} but only if the request is still in use {@code generation}. */
    public boolean completeIfGeneration(int generation, BlkStatus status) {
        if (!markComplete(generation)) {
            return false;
        }
        Completion.end(this, status);
        return true;
    }

    /**
     * {@code blk_mq_requeue_request}: hands an issued request back; it goes to the
     * head of its hctx's dispatch list. With {@code kick} the requeue work runs now,
     * otherwise at the next {@link RequestQueue#kickRequeueList()}.
     */
    public void requeue(boolean kick) {
        q.requeue.add(this, kick);
    }

    /** CAS IN_FLIGHT (with or without TIMED_OUT) → COMPLETE; the race with the timeout path. */
    boolean markComplete(int generation) {
        for (;;) {
            int s = stateAcquire();
            if ((s & STATE_MASK) != IN_FLIGHT || (generation >= 0 && (s >>> 3) != generation)) {
                return false;
            }
            // Acq/rel CAS: the winner sees the starter's writes and publishes COMPLETE to the loser.
            if (STATE.compareAndSet(this, s, (s & ~(STATE_MASK | TIMED_OUT)) | COMPLETE)) {
                return true;
            }
        }
    }

    /** Timeout path: IN_FLIGHT → IN_FLIGHT|TIMED_OUT for generation of {@code seen}. */
    boolean markTimedOut(int seen) {
        return STATE.compareAndSet(this, seen, seen | TIMED_OUT);
    }

    /** After RESET_TIMER: clears TIMED_OUT if the request is still in the same use and in flight. */
    void clearTimedOut() {
        for (;;) {
            int s = stateAcquire();
            if ((s & (STATE_MASK | TIMED_OUT)) != (IN_FLIGHT | TIMED_OUT)) {
                return;
            }
            if (STATE.compareAndSet(this, s, s & ~TIMED_OUT)) {
                return;
            }
        }
    }

    /** Back to IDLE at the next generation (free, or hand-back for re-issue). */
    void setIdleNextGeneration() {
        int s = stateAcquire();
        // Release: a completer's CAS (acquire) on the next use sees all writes of this one.
        STATE.setRelease(this, ((s >>> 3) + 1) << 3);
    }

    int stateAcquire() {
        return (int) STATE.getAcquire(this);
    }

    @Override
    public String toString() {
        return "Request[tag=" + tag + ", sched_tag=" + internalTag + ", op=" + op + ", state=" + (stateAcquire() & STATE_MASK) + "]";
    }
}
