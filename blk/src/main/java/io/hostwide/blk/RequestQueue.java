package io.hostwide.blk;

import io.hostwide.blk.exec.Kblockd;
import io.hostwide.blk.stat.RequestQueueSnapshot;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One logical unit's queue ({@code struct request_queue}): its software queues
 * (ctx), hardware queues (hctx) over the tag set's tags, scheduler, timeouts,
 * requeue list and quiesce state. Created by {@link TagSet#addQueue}.
 */
public final class RequestQueue implements AutoCloseable {
    private static final VarHandle HCTX_ACTIVE;
    private static final VarHandle NR_ACTIVE_SHARED;
    private static final VarHandle RESTARTS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HCTX_ACTIVE = l.findVarHandle(RequestQueue.class, "hctxActive", int.class);
            NR_ACTIVE_SHARED = l.findVarHandle(RequestQueue.class, "nrActiveShared", int.class);
            RESTARTS = l.findVarHandle(RequestQueue.class, "budgetRestarts", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final String name;
    final TagSet set;
    final Kblockd kblockd;
    final Hctx[] hctxs;
    final Ctx[] ctxs;
    final Timeouts timeouts;
    /** The driver's per-queue pointer ({@code q->queuedata}). */
    public volatile Object queuedata;
    volatile IoScheduler elevator;
    /** {@code q->nr_requests}: scheduler-tag depth, or the driver depth with none. */
    volatile int nrRequests;
    /** Scheduler tags shared by all hctxs with host-wide tags ({@code sched_shared_tags}). */
    Tags schedSharedTags;
    long timeoutNanos;
    final Hctx.Counters timeoutsFired = new Hctx.Counters();
    final Hctx.Counters completed = new Hctx.Counters();
    final RequeueList requeue;
    private volatile int quiesceDepth;
    private volatile boolean dying;
    /** {@code QUEUE_FLAG_HCTX_ACTIVE}, host-wide tags only. */
    @SuppressWarnings("unused") private volatile int hctxActive;
    /** {@code nr_active_requests_shared_tags}. */
    @SuppressWarnings("unused") private volatile int nrActiveShared;
    @SuppressWarnings("unused") private volatile int budgetRestarts;

    RequestQueue(TagSet set, String name, int initialFlags) {
        this.set = set;
        this.name = name;
        this.kblockd = set.kblockd;
        this.timeoutNanos = set.config.effectiveTimeoutNanos();
        this.nrRequests = set.config.queueDepth();
        int nrHw = set.config.nrHwQueues();
        this.hctxs = new Hctx[nrHw];
        for (int i = 0; i < nrHw; i++) {
            hctxs[i] = new Hctx(this, i, set.tags[i], initialFlags);
        }
        this.ctxs = new Ctx[set.config.nrCtx()];
        mapQueues();
        this.timeouts = new Timeouts(this);
        this.requeue = new RequeueList(this);
    }

    /** {@code blk_mq_map_queues} + {@code map_swqueue}: ctx i → hctx i·nrHw/nrCtx, spread evenly. */
    private void mapQueues() {
        int nrHw = hctxs.length;
        int n = ctxs.length;
        List<List<Ctx>> perHctx = new ArrayList<>();
        for (int i = 0; i < nrHw; i++) {
            perHctx.add(new ArrayList<>());
        }
        for (int c = 0; c < n; c++) {
            int hw = (int) ((long) c * nrHw / n);
            Hctx h = hctxs[hw];
            Ctx ctx = new Ctx(c, this, h, perHctx.get(hw).size());
            perHctx.get(hw).add(ctx);
            ctxs[c] = ctx;
        }
        for (int i = 0; i < nrHw; i++) {
            hctxs[i].ctxs = perHctx.get(i).toArray(new Ctx[0]);
            hctxs[i].ctxMap = new long[Math.max(1, (hctxs[i].ctxs.length + 63) / 64)];
        }
    }

    public String name() {
        return name;
    }

    public TagSet tagSet() {
        return set;
    }

    public int nrHwQueues() {
        return hctxs.length;
    }

    public Hctx hctx(int i) {
        return hctxs[i];
    }

    public int nrCtx() {
        return ctxs.length;
    }

    public Ctx ctx(int i) {
        return ctxs[i];
    }

    public int nrRequests() {
        return nrRequests;
    }

    /** The scheduler name, {@code none} when there is none. */
    public String schedulerName() {
        IoScheduler e = elevator;
        return e == null ? "none" : e.name();
    }

    /** {@code queue/io_timeout}. */
    public long timeoutMillis() {
        return timeoutNanos / 1_000_000L;
    }

    public void setTimeoutMillis(long ms) {
        if (ms <= 0) {
            throw new IllegalArgumentException("io_timeout must be > 0 ms, got " + ms);
        }
        timeoutNanos = ms * 1_000_000L;
    }

    public boolean isQuiesced() {
        return quiesceDepth > 0;
    }

    public boolean isDying() {
        return dying;
    }

    // ---- fair-share state for host-wide tags ----

    boolean isHctxActive() {
        return (int) HCTX_ACTIVE.getAcquire(this) != 0;
    }

    boolean testAndSetHctxActive() {
        return (int) HCTX_ACTIVE.getAndSet(this, 1) != 0;
    }

    boolean testAndClearHctxActive() {
        return (int) HCTX_ACTIVE.getAndSet(this, 0) != 0;
    }

    int nrActiveShared() {
        return (int) NR_ACTIVE_SHARED.getAcquire(this);
    }

    void addNrActiveShared(int d) {
        NR_ACTIVE_SHARED.getAndAdd(this, d);
    }

    int budgetRestarts() {
        return (int) RESTARTS.getVolatile(this);
    }

    void incBudgetRestarts() {
        RESTARTS.getAndAdd(this, 1);
    }

    boolean clearBudgetRestarts() {
        int old = budgetRestarts();
        return old != 0 && RESTARTS.compareAndSet(this, old, 0);
    }

    /** Driver tag spaces of this queue, each once (one with host-wide tags). */
    Set<Tags> distinctDriverTags() {
        Set<Tags> s = new LinkedHashSet<>();
        for (Hctx h : hctxs) {
            s.add(h.tags);
        }
        return s;
    }

    // ---- running queues ----

    /** {@code blk_mq_run_hw_queues}; a queue-wide scheduler runs hctx 0 plus any with a non-empty dispatch list. */
    public void runHwQueues(boolean async) {
        IoScheduler e = elevator;
        boolean sq = e != null && e.singleQueue();
        for (Hctx h : hctxs) {
            if (h.isStopped()) {
                continue;
            }
            if (sq && h.queueNum != 0 && !h.dispatchListNonEmpty()) {
                continue;
            }
            Dispatcher.runHwQueue(h, async);
        }
    }

    /** {@code blk_mq_delay_run_hw_queues}: skips hctxs whose run is already pending, so none postpones another. */
    public void delayRunHwQueues(long delayMillis) {
        for (Hctx h : hctxs) {
            if (h.isStopped() || h.runWork.isPending()) {
                continue;
            }
            h.delayRunHwQueue(delayMillis);
        }
    }

    public void stopHwQueues() {
        for (Hctx h : hctxs) {
            h.stop();
        }
    }

    /** {@code blk_mq_start_stopped_hw_queues(q, true)}. */
    public void startStoppedHwQueues() {
        for (Hctx h : hctxs) {
            if (h.isStopped()) {
                h.start();
            }
        }
    }

    /**
     * {@code blk_mq_quiesce_queue}: no dispatch starts after this returns and none is
     * in progress. Must not be called from inside {@link BlkMqOps#queueRq}.
     */
    public void quiesce() {
        synchronized (this) {
            quiesceDepth++;
        }
        // quiesceDepth is volatile-written before the grace period; a dispatcher
        // enters (full-fence RMW) before reading quiesceDepth, so it either is waited
        // for here or sees the flag and leaves without dispatching.
        for (Hctx h : hctxs) {
            h.synchronizeDispatch();
        }
    }

    /** {@code blk_mq_unquiesce_queue}: at depth 0 runs every hardware queue. */
    public void unquiesce() {
        boolean run;
        synchronized (this) {
            if (quiesceDepth == 0) {
                throw new IllegalStateException("unquiesce without quiesce on " + name);
            }
            run = --quiesceDepth == 0;
        }
        if (run) {
            runHwQueues(true);
        }
    }

    // ---- insertion ----

    /** {@code blk_mq_insert_request}: elevator, or the ctx list. */
    void insertRequest(Request rq, boolean atHead) {
        IoScheduler e = elevator;
        if ((rq.rqFlags & Request.RQF_USE_SCHED) != 0 && e != null) {
            e.insert(rq.hctx, rq, atHead);
        } else {
            rq.ctx.insert(rq, atHead);
        }
    }

    /** {@code blk_mq_request_bypass_insert}: straight to hctx->dispatch. */
    void bypassInsert(Request rq, boolean atHead) {
        Hctx h = rq.hctx;
        synchronized (h.dispatch) {
            if (atHead) {
                h.dispatch.addHead(rq);
            } else {
                h.dispatch.addTail(rq);
            }
        }
    }

    // ---- requeue ----

    /** {@code blk_mq_kick_requeue_list}. */
    public void kickRequeueList() {
        requeue.kick(0);
    }

    /** {@code blk_mq_delay_kick_requeue_list}. */
    public void delayKickRequeueList(long delayMillis) {
        requeue.kick(delayMillis * 1_000_000L);
    }

    // ---- scheduler ----

    /** Switches the scheduler ({@code queue/scheduler}); the queue must be idle. {@code "none"} detaches. */
    public synchronized void setScheduler(String schedName) {
        IoScheduler next = IoSchedulers.create(schedName);
        requireIdle("switch scheduler");
        IoScheduler old = elevator;
        if (old != null) {
            old.exit(this);
        }
        if (next == null) {
            elevator = null;
            schedSharedTags = null;
            for (Hctx h : hctxs) {
                h.schedTags = null;
            }
            nrRequests = set.config.queueDepth();
            return;
        }
        int nr = 2 * Math.min(set.config.queueDepth(), 128);
        allocSchedTags(nr);
        int minShallow = next.minShallowDepth();
        if (minShallow > 0) {
            for (Hctx h : hctxs) {
                h.schedTags.bitmapTags.setMinShallowDepth(minShallow);
            }
        }
        nrRequests = nr;
        next.init(this);
        next.depthUpdated(this, nr);
        elevator = next;
    }

    /** Scheduler tags kept apart from driver tags: per hctx, or one pool per queue with host-wide tags. */
    private void allocSchedTags(int nr) {
        int reserved = set.config.reservedTags();
        int depth = nr + reserved;
        if (set.hostTagset) {
            schedSharedTags = set.newTags(depth, reserved);
            for (Hctx h : hctxs) {
                h.schedTags = schedSharedTags;
            }
        } else {
            schedSharedTags = null;
            for (Hctx h : hctxs) {
                h.schedTags = set.newTags(depth, reserved);
            }
        }
    }

    /** Requests of this queue allocated and not yet freed (scan of the pools; for idle checks and stats). */
    public int allocatedRequests() {
        int n = 0;
        Set<Tags> pools = distinctDriverTags();
        for (Hctx h : hctxs) {
            if (h.schedTags != null) {
                pools.add(h.schedTags);
            }
        }
        for (Tags t : pools) {
            for (Request rq : t.staticRqs) {
                if (rq.q == this) {
                    n++;
                }
            }
        }
        return n;
    }

    /** Requests of this queue the driver holds ({@code IN_FLIGHT}). */
    public int inFlight() {
        int n = 0;
        for (Tags t : distinctDriverTags()) {
            for (int tag = 0; tag < t.nrTags; tag++) {
                Request rq = t.rqAt(tag);
                if (rq != null && rq.q == this && (rq.stateAcquire() & Request.STATE_MASK) == Request.IN_FLIGHT) {
                    n++;
                }
            }
        }
        return n;
    }

    private void requireIdle(String what) {
        if (allocatedRequests() != 0) {
            throw new IllegalStateException("cannot " + what + " on " + name + ": requests outstanding");
        }
    }

    // ---- submission & teardown ----

    /** A submission handle bound to software queue {@code ctxIndex} (a job thread owns one). */
    public Submitter submitter(int ctxIndex) {
        if (ctxIndex < 0 || ctxIndex >= ctxs.length) {
            throw new IllegalArgumentException("ctx index must be 0.." + (ctxs.length - 1) + ", got " + ctxIndex);
        }
        return new Submitter(this, ctxs[ctxIndex]);
    }

    /**
     * {@code blk_mq_destroy_queue}: refuses new I/O, waits for outstanding requests,
     * stops timers, marks hctxs tag-idle and leaves the tag set.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (dying) {
                return;
            }
            dying = true;
        }
        runHwQueues(false);
        kickRequeueList();
        while (allocatedRequests() != 0) {
            runHwQueues(true);
            try {
                Thread.sleep(1);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        timeouts.cancel();
        requeue.cancel();
        for (Hctx h : hctxs) {
            h.runWork.cancel();
            TagAlloc.tagIdle(h);
            if (h.dispatchWait.isQueued() && h.dispatchWaitOn != null) {
                h.dispatchWaitOn.removeWaitQueue(h.dispatchWait);
            }
        }
        IoScheduler e = elevator;
        if (e != null) {
            e.exit(this);
        }
        set.removeQueue(this);
    }

    /** The {@code stat} view of this queue and its hardware queues. */
    public RequestQueueSnapshot snapshot() {
        return Snapshots.of(this);
    }
}
