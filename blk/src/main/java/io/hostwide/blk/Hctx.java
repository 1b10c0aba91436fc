package io.hostwide.blk;

import io.hostwide.blk.exec.DelayedWork;
import io.hostwide.sbitmap.SbitmapQueue;
import io.hostwide.sbitmap.WaitEntry;
import io.hostwide.sbitmap.WaitIndex;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A hardware dispatch queue ({@code struct blk_mq_hw_ctx}): the dispatch list,
 * state bits, the ctx_map of software queues with pending work, {@code nr_active}
 * for fair sharing, the {@code dispatch_wait} callback entry with its wait index,
 * the {@code dispatch_busy} EWMA and the run work item.
 */
public final class Hctx {
    // state bits (BLK_MQ_S_*)
    public static final int S_STOPPED = 1;
    public static final int S_TAG_ACTIVE = 2;
    public static final int S_SCHED_RESTART = 4;
    public static final int S_INACTIVE = 8;

    private static final VarHandle STATE;
    private static final VarHandle EPOCH;
    private static final VarHandle DISPATCHERS = MethodHandles.arrayElementVarHandle(int[].class);
    private static final VarHandle COUNTER;
    private static final VarHandle CTX_MAP = MethodHandles.arrayElementVarHandle(long[].class);

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(Hctx.class, "state", int.class);
            EPOCH = l.findVarHandle(Hctx.class, "epoch", int.class);
            COUNTER = l.findVarHandle(Counters.class, "v", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final RequestQueue q;
    final int queueNum;
    final Tags tags;
    /** Scheduler tags (per hctx, or the queue's single pool with host-wide tags); null with {@code none}. */
    Tags schedTags;
    /** Requests that bypass or came back from the driver; guarded by itself. */
    final RqList dispatch = new RqList();
    Ctx[] ctxs = new Ctx[0];
    long[] ctxMap = new long[1];
    final DispatchWait dispatchWait = new DispatchWait();
    final WaitIndex waitIndex = new WaitIndex();
    /** The bitmap {@link #dispatchWait} is queued on, for removal. */
    volatile SbitmapQueue dispatchWaitOn;
    /** EWMA of "the driver pushed back"; racy updates, like the kernel's WRITE_ONCE. */
    volatile int dispatchBusy;
    /** Next ctx for one-at-a-time dispatch ({@code dispatch_from}); dispatch-local, racy. */
    int dispatchFrom;
    final DelayedWork runWork;
    final Counters run = new Counters();
    final Counters dispatched = new Counters();

    @SuppressWarnings("unused") private volatile int state;
    /** Copy of the set flags plus TAG_QUEUE_SHARED. Written under the tag set's tag_list lock. */
    volatile int flags;
    /** {@code nr_active}, on its own lines: see {@link ActiveCount}. */
    private final ActiveCount nrActive = new ActiveCount();
    /**
     * Dispatchers inside the read side: for each slot, one counter per epoch parity (the two SRCU counters),
     * each slot on its own 128 bytes. Slot {@link #RUN_SLOT} counts queue runs (kblockd, inline runs); slot
     * 1 + i counts direct issues by the submitter of this hctx's ctx i. The kernel's SRCU read side counts
     * per CPU for the same reason: several submitters on one hctx must not all RMW one line twice per issue.
     */
    private final int[] srcu;
    private final int nrSlots;
    @SuppressWarnings("unused") private volatile int epoch;
    /**
     * Times a grace period ({@link #synchronizeDispatch}) found a dispatcher still inside a slot and waited for
     * it: the slow path only. Tests wait for it to move to know a grace period is blocked, not merely unscheduled.
     */
    final Counters graceWaits = new Counters();

    /** {@link #enterDispatch} slot for queue runs; a ctx's submitter uses {@link #ctxSlot}. */
    static final int RUN_SLOT = 0;
    /** ints per dispatch slot: 128 bytes (a cache line and its adjacent-line prefetch partner). */
    private static final int SLOT_STRIDE = 32;

    /** An hctx that {@code nrCtx} software queues map to. */
    Hctx(RequestQueue q, int queueNum, Tags tags, int flags, int nrCtx) {
        this.nrSlots = nrCtx + 1;
        this.srcu = new int[(nrSlots + 1) * SLOT_STRIDE];   // + a leading pad
        this.q = q;
        this.queueNum = queueNum;
        this.tags = tags;
        this.flags = flags;
        this.runWork = q.kblockd.newWork(q.name + "/hctx" + queueNum + "/run", () -> Dispatcher.runWork(this));
    }

    public int queueNum() {
        return queueNum;
    }

    public RequestQueue queue() {
        return q;
    }

    /** How many software queues map to this hctx ({@code nr_ctx}). */
    public int nrCtx() {
        return nrSlots - 1;
    }

    /** The driver tags this hctx allocates from. */
    public Tags tags() {
        return tags;
    }

    public int flags() {
        return flags;
    }

    public int state() {
        return (int) STATE.getAcquire(this);
    }

    public int nrActive() {
        return nrActive.get();
    }

    /** True while {@code dispatch_wait} is queued on a tag bitmap (debugfs shows it in {@code dispatch}). */
    public boolean snapshotWaitQueued() {
        return dispatchWait.isQueued();
    }

    public int dispatchBusy() {
        return dispatchBusy;
    }

    boolean testState(int bit) {
        return (state() & bit) != 0;
    }

    /** {@code test_and_set_bit}: full-fence RMW; returns whether the bit was already set. */
    boolean testAndSetState(int bit) {
        return ((int) STATE.getAndBitwiseOr(this, bit) & bit) != 0;
    }

    /** {@code test_and_clear_bit}: full-fence RMW; returns whether the bit was set. */
    boolean testAndClearState(int bit) {
        return ((int) STATE.getAndBitwiseAnd(this, ~bit) & bit) != 0;
    }

    void addNrActive(int delta) {
        nrActive.add(delta);
    }

    /** The {@link #enterDispatch} slot of the submitter of ctx {@code ctx} (which maps to this hctx). */
    static int ctxSlot(Ctx ctx) {
        return 1 + ctx.indexHw;
    }

    private static int at(int slot, int parity) {
        return (slot + 1) * SLOT_STRIDE + parity;
    }

    /**
     * SRCU-style read side around every dispatch ({@code blk_mq_run_dispatch_ops}):
     * counts this dispatcher in {@code slot}'s counter of the current epoch and returns a token for
     * {@link #exitDispatch}. The RMW is a full fence, so the quiesced / stopped checks that follow cannot
     * move above it; it pairs with the volatile reads in {@link #synchronizeDispatch}.
     */
    int enterDispatch(int slot) {
        int parity = (int) EPOCH.getVolatile(this) & 1;
        DISPATCHERS.getAndAdd(srcu, at(slot, parity), 1);
        return slot << 1 | parity;
    }

    /** Leaves the read side entered with {@code token}; full-fence RMW, so the dispatch is done before it. */
    void exitDispatch(int token) {
        DISPATCHERS.getAndAdd(srcu, at(token >>> 1, token & 1), -1);
    }

    /**
     * {@code synchronize_srcu}: returns once every dispatch that was in progress when
     * it was called has left. Drains stragglers of the previous epoch, flips the
     * epoch, then drains the old one; new dispatchers land on the new counters, so
     * this finishes under constant load. Each slot's count is exact (a dispatcher
     * leaves the slot it entered), so reading every slot of a parity as 0, one after
     * another, proves that each dispatcher present at the call has left: it was still
     * counted when its slot was read, until it left.
     */
    void synchronizeDispatch() {
        synchronized (srcu) {
            int cur = (int) EPOCH.getVolatile(this);
            waitDrained((cur + 1) & 1);
            EPOCH.setVolatile(this, cur + 1);
            waitDrained(cur & 1);
        }
    }

    private void waitDrained(int parity) {
        for (int slot = 0; slot < nrSlots; slot++) {
            if ((int) DISPATCHERS.getVolatile(srcu, at(slot, parity)) == 0) {
                continue;
            }
            graceWaits.inc();
            while ((int) DISPATCHERS.getVolatile(srcu, at(slot, parity)) != 0) {
                Thread.onSpinWait();
                Thread.yield();
            }
        }
    }

    void markCtxPending(int bit) {
        long m = 1L << (bit & 63);
        // Plain test first to avoid dirtying the line when already set (kernel does the same).
        if (((long) CTX_MAP.getOpaque(ctxMap, bit >>> 6) & m) == 0) {
            CTX_MAP.getAndBitwiseOr(ctxMap, bit >>> 6, m);
        }
    }

    void clearCtxPending(int bit) {
        long m = 1L << (bit & 63);
        if (((long) CTX_MAP.getOpaque(ctxMap, bit >>> 6) & m) != 0) {
            CTX_MAP.getAndBitwiseAnd(ctxMap, bit >>> 6, ~m);
        }
    }

    boolean anyCtxPending() {
        for (int i = 0; i < ctxMap.length; i++) {
            if ((long) CTX_MAP.getAcquire(ctxMap, i) != 0) {
                return true;
            }
        }
        return false;
    }

    boolean isCtxPending(int bit) {
        return ((long) CTX_MAP.getAcquire(ctxMap, bit >>> 6) & (1L << (bit & 63))) != 0;
    }

    boolean dispatchListNonEmpty() {
        synchronized (dispatch) {
            return !dispatch.isEmpty();
        }
    }

    /** {@code blk_mq_hctx_has_pending}: dispatch list, any ctx, or the scheduler (drivers use it to pick whom to wake). */
    public boolean hasPending() {
        if (dispatchListNonEmpty() || anyCtxPending()) {
            return true;
        }
        return q.elevator != null && q.elevator.hasWork(this);
    }

    /** {@code blk_mq_run_hw_queue}: dispatch now on this thread, or on kblockd when {@code async}. */
    public void runHwQueue(boolean async) {
        Dispatcher.runHwQueue(this, async);
    }

    /** {@code blk_mq_delay_run_hw_queue}: "modify" semantics, a new call moves a pending run. */
    public void delayRunHwQueue(long delayMillis) {
        if (testState(S_STOPPED)) {
            return;
        }
        runWork.mod(delayMillis * 1_000_000L);
    }

    /** {@code blk_mq_stop_hw_queue}: no run, inline or delayed, until started. */
    public void stop() {
        runWork.cancel();
        testAndSetState(S_STOPPED);
    }

    /** {@code blk_mq_start_hw_queue} / {@code start_stopped}: clears STOPPED and runs the queue asynchronously. */
    public void start() {
        testAndClearState(S_STOPPED);
        runHwQueue(true);
    }

    public boolean isStopped() {
        return testState(S_STOPPED);
    }

    /** The non-exclusive tag-wait entry ({@code hctx->dispatch_wait}, {@code blk_mq_dispatch_wake}). */
    final class DispatchWait extends WaitEntry {
        @Override
        protected void wake() {
            dispatchWaitOn = null;
            runHwQueue(true);
        }
    }

    /** A contended-safe counter; atomic adds, opaque reads (statistics only). */
    static final class Counters {
        @SuppressWarnings("unused") private volatile long v;

        void inc() {
            COUNTER.getAndAdd(this, 1L);
        }

        void add(long n) {
            if (n != 0) {
                COUNTER.getAndAdd(this, n);
            }
        }

        long get() {
            return (long) COUNTER.getOpaque(this);
        }
    }
}
