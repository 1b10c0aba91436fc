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
    private static final VarHandle RESTARTS;
    /** {@code BLK_DEF_MAX_SECTORS_CAP}: 1280 KiB. */
    public static final int DEFAULT_MAX_SECTORS = 2560;
    /** {@code BLK_MAX_SEGMENT_SIZE}: 64 KiB. */
    public static final int DEFAULT_MAX_SEGMENT_SIZE = 65536;
    /** Largest {@code max_segments} ({@code USHRT_MAX}, the kernel's field width). */
    public static final int MAX_SEGMENTS_LIMIT = 65535;
    /** {@code BLK_MIN_SEGMENT_SIZE}. */
    public static final int MIN_SEGMENT_SIZE = 4096;
    /** No limit: the largest sector count whose byte size still fits an int request length. */
    public static final int UNLIMITED_SECTORS = Integer.MAX_VALUE / 512;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HCTX_ACTIVE = l.findVarHandle(RequestQueue.class, "hctxActive", int.class);
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
    /** The scheduler, null for none; read on the I/O path, written only by {@link ElevatorSwitch}. */
    volatile IoScheduler elevator;
    /** {@code q->nr_requests}: scheduler-tag depth, or the driver depth with none ({@link ElevatorSwitch} sets it). */
    volatile int nrRequests;
    long timeoutNanos;
    final Hctx.Counters timeoutsFired = new Hctx.Counters();
    /** hctx runs requested by completions themselves ({@link SharedTagModes} completion-run modes). */
    final Hctx.Counters completionRuns = new Hctx.Counters();
    /** Times a submitter slept in tag allocation ({@code blk_mq_get_tag}'s io_schedule); slow path only. */
    final Hctx.Counters tagSleeps = new Hctx.Counters();
    final RequeueList requeue;
    /** Merges, counted as {@code /sys/block/<dev>/stat}'s read merges and write merges. */
    final Hctx.Counters readMerges = new Hctx.Counters();
    final Hctx.Counters writeMerges = new Hctx.Counters();
    /** {@code queue/nomerges}: 0 all merges, 1 only the simple one-hit ones, 2 none. */
    volatile int nomerges;
    /** {@code struct queue_limits}: request sizes and write features, read on the I/O path. */
    final QueueLimits limits = new QueueLimits();
    /** Bios that were split to fit the limits ({@code bio_split_to_limits} calls that split). */
    final Hctx.Counters splits = new Hctx.Counters();
    /** Flush-sequence stages re-issued after an earlier stage of the same request. */
    final Hctx.Counters flushStages = new Hctx.Counters();
    final Freeze freeze;
    private final ElevatorSwitch elevatorSwitch = new ElevatorSwitch(this);
    private volatile int quiesceDepth;
    private volatile boolean dying;
    /** {@code QUEUE_FLAG_HCTX_ACTIVE}, host-wide tags only. */
    @SuppressWarnings("unused") private volatile int hctxActive;
    /** {@code nr_active_requests_shared_tags}, on its own lines. */
    private final ActiveCount nrActiveShared = new ActiveCount();
    @SuppressWarnings("unused") private volatile int budgetRestarts;

    RequestQueue(TagSet set, String name, int initialFlags) {
        this.set = set;
        this.name = name;
        this.kblockd = set.kblockd;
        this.timeoutNanos = set.config.effectiveTimeoutNanos();
        this.nrRequests = set.config.queueDepth();
        int nrHw = set.config.nrHwQueues();
        this.hctxs = new Hctx[nrHw];
        int nrCtx = set.config.nrCtx();
        int[] ctxsOf = new int[nrHw];
        for (int c = 0; c < nrCtx; c++) {
            ctxsOf[hctxOfCtx(c, nrHw, nrCtx)]++;
        }
        for (int i = 0; i < nrHw; i++) {
            hctxs[i] = new Hctx(this, i, set.tags[i], initialFlags, ctxsOf[i]);
        }
        this.ctxs = new Ctx[nrCtx];
        mapQueues();
        this.timeouts = new Timeouts(this);
        this.requeue = new RequeueList(this);
        this.freeze = new Freeze(this);
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
            int hw = hctxOfCtx(c, nrHw, n);
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

    /** The hctx ctx {@code c} of {@code nrCtx} maps to: spread evenly. */
    private static int hctxOfCtx(int c, int nrHw, int nrCtx) {
        return (int) ((long) c * nrHw / nrCtx);
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

    /** {@code queue/nomerges}. */
    public int nomerges() {
        return nomerges;
    }

    /**
     * Sets {@code queue/nomerges}: 0 = every merge (plug, software queue, scheduler
     * hash and sort-tree lookups), 1 = only the simple ones (plug, software queue,
     * the scheduler's one-hit cache; no lookups), 2 = none.
     */
    public void setNomerges(int v) {
        if (v < 0 || v > 2) {
            throw new IllegalArgumentException("nomerges must be 0, 1 or 2, got " + v);
        }
        nomerges = v;
    }

    /** {@code queue/max_segments}. */
    public int maxSegments() {
        return limits.maxSegments;
    }

    /**
     * Sets {@code queue/max_segments} (the driver's scatter-gather table size, {@code sg_tablesize}). A request
     * also never carries more than {@link Request#MAX_SEGMENTS} merged bios, whatever this says.
     */
    public void setMaxSegments(int v) {
        limits.setMaxSegments(v);
    }

    /** {@code queue/max_sectors_kb}. */
    public int maxSectorsKb() {
        return limits.maxSectors / 2;
    }

    /**
     * Sets {@code queue/max_sectors_kb}: no request is larger (bigger bios are split, merges stop there). As the
     * sysfs write, it must lie between 4 (one page) and {@code max_hw_sectors_kb}.
     */
    public void setMaxSectorsKb(int kb) {
        limits.setMaxSectorsKb(kb);
    }

    /** {@code queue/max_hw_sectors_kb}. */
    public int maxHwSectorsKb() {
        return limits.maxHwSectors / 2;
    }

    /**
     * The driver's limit ({@code max_hw_sectors}, in 512-byte sectors, at least 8): also lowers
     * {@code max_sectors} to it. Drivers call this while setting the queue up, before I/O.
     */
    public void setMaxHwSectors(int sectors) {
        limits.setMaxHwSectors(sectors);
    }

    /** Sets {@code max_sectors} directly in sectors (a driver's choice below the hardware limit, e.g. sd's). */
    public void setMaxSectors(int sectors) {
        limits.setMaxSectors(sectors);
    }

    /** {@code queue/max_segment_size}. */
    public int maxSegmentSize() {
        return limits.maxSegmentSize;
    }

    public void setMaxSegmentSize(int bytes) {
        limits.setMaxSegmentSize(bytes);
    }

    /** {@code queue/logical_block_size}. */
    public int logicalBlockSize() {
        return limits.logicalBlockSize;
    }

    public void setLogicalBlockSize(int bytes) {
        limits.setLogicalBlockSize(bytes);
    }

    /** {@code queue/discard_max_bytes}; 0 when the device does not discard. */
    public long discardMaxBytes() {
        return limits.maxDiscardSectors * 512L;
    }

    /** {@code queue/discard_granularity}. */
    public int discardGranularity() {
        return limits.discardGranularity;
    }

    /**
     * Discard limits ({@code max_discard_sectors}, {@code discard_granularity}): 0 sectors = no discard (such a
     * DISCARD ends with NOTSUPP unsent); the granularity is a multiple of the logical block size.
     */
    public void setDiscardLimits(int maxSectors, int granularityBytes) {
        limits.setDiscardLimits(maxSectors, granularityBytes);
    }

    /** {@code queue/write_cache}: "write back" when true, "write through" when false. */
    public boolean writeCache() {
        return limits.writeCache;
    }

    /** {@code queue/fua}. */
    public boolean fua() {
        return limits.fua;
    }

    /**
     * {@code blk_queue_write_cache}: whether the device has a volatile write cache and whether it honours FUA
     * (meaningful only with a cache). Without a cache, FLUSH ends at once and FUA/PREFLUSH are dropped; with one but
     * without FUA support, FUA becomes a FLUSH after the write ({@link FlushSeq}).
     */
    public void setWriteCache(boolean wc, boolean fua) {
        limits.setWriteCache(wc, fua);
    }

    /** Flush-sequence stages (PREFLUSH or POSTFLUSH around a write, or its data) issued after a first stage. */
    public long flushStages() {
        return flushStages.get();
    }

    /** True when the driver takes passthrough requests ({@link ReqOp#DRV_IN}, {@link ReqOp#DRV_OUT}). */
    public boolean supportsPassthrough() {
        return set.ops.supportsPassthrough();
    }

    /** Bios split to fit this queue's limits so far. */
    public long splits() {
        return splits.get();
    }

    /** {@code queue/rotational}: the device reports a seeking medium. */
    public boolean isRotational() {
        return limits.rotational;
    }

    public void setRotational(boolean v) {
        limits.rotational = v;
    }

    /** The attached scheduler, null for {@code none}; its {@code queue/iosched/} attributes are on it. */
    public IoScheduler scheduler() {
        return elevator;
    }

    /**
     * Times a submitter of this queue slept waiting for a tag (a driver tag with none, a scheduler tag with an
     * elevator): 0 while the tags never run out.
     */
    public long tagSleeps() {
        return tagSleeps.get();
    }

    /** hctx runs that completions requested unconditionally (0 unless a completion-run {@link SharedTagModes} is set). */
    public long completionRuns() {
        return completionRuns.get();
    }

    /** Read and write merges so far. */
    public long merges() {
        return readMerges.get() + writeMerges.get();
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
        return nrActiveShared.get();
    }

    void addNrActiveShared(int d) {
        nrActiveShared.add(d);
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

    /**
     * {@code blk_mq_run_hw_queues} from a thread with no software queue of its own:
     * the "current CPU" is the ctx the thread id maps to.
     */
    public void runHwQueues(boolean async) {
        runHwQueues(ctxs[(int) Math.floorMod(Thread.currentThread().threadId(), (long) ctxs.length)], async);
    }

    /**
     * {@code blk_mq_run_hw_queues} with {@code current} as the caller's ctx. With a
     * queue-wide scheduler ({@code QUEUE_FLAG_SQ_SCHED}, digest §2.10, §3.3) only
     * {@code current}'s hctx runs, plus any hctx whose dispatch list is non-empty:
     * every hctx would dispatch from the same scheduler, so running them all only
     * contends on its lock.
     */
    void runHwQueues(Ctx current, boolean async) {
        IoScheduler e = elevator;
        Hctx sqHctx = e != null && e.singleQueue() ? current.hctx : null;
        for (Hctx h : hctxs) {
            if (h.isStopped()) {
                continue;
            }
            if (sqHctx != null && h != sqHctx && !h.dispatchListNonEmpty()) {
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

    /**
     * Switches the scheduler ({@code queue/scheduler}, {@code elevator_switch}); {@code "none"}
     * detaches. Safe while I/O runs: the queue is frozen (new submissions wait, every
     * allocated request drains through the old scheduler), quiesced, switched, then
     * released; nothing is lost or failed. Must not be called from an I/O callback or
     * a driver hook (it waits for them).
     */
    public void setScheduler(String schedName) {
        elevatorSwitch.switchTo(IoSchedulers.create(schedName));
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
        freeze.wakeWaiters();
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
            if (h.dispatchWait.isQueued() && h.dispatchWaitOn != null) {
                h.dispatchWaitOn.removeWaitQueue(h.dispatchWait);
            }
        }
        TagAlloc.queueIdle(this);
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
