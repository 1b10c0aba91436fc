package io.hostwide.scsi.mid;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.TagSet;
import io.hostwide.blk.TagSetConfig;
import io.hostwide.blk.TagSetFlags;
import io.hostwide.blk.exec.DelayedWork;
import io.hostwide.blk.exec.Kblockd;
import io.hostwide.scsi.spec.ScsiStatus;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A SCSI host ({@code struct Scsi_Host}, digest §4.1): one blk tag set of depth {@code can_queue} shared by every
 * LUN, {@code nr_hw_queues} hardware queues (host-wide tags with {@code host_tagset}), {@code host_blocked}, the
 * starved list, completion with dispositions and the error handler.
 *
 * <p>The host limit is enforced by tags alone: without {@code host_tagset} each hardware queue has
 * {@code can_queue} tags, so up to {@code nr_hw_queues × can_queue} commands can be outstanding.
 * {@code host_busy} is derived by counting commands marked in flight ({@link #hostBusy()}, O(depth)).
 */
public final class ScsiHost implements AutoCloseable {
    /** {@code SCSI_QUEUE_DELAY}, ms. */
    static final long QUEUE_DELAY_MS = 3;
    private static final AtomicInteger HOST_NUMBERS = new AtomicInteger();

    final int hostNo = HOST_NUMBERS.getAndIncrement();
    final ScsiHostTemplate template;
    final LowLevelDriver lld;
    final Kblockd kblockd;
    /** Every request PDU of the tag set (driver and scheduler pools), for the derived host_busy. */
    final ConcurrentLinkedQueue<ScsiCmnd> cmnds = new ConcurrentLinkedQueue<>();
    final TagSet tagSet;
    final ErrorHandler eh;
    final AtomicInteger hostBlocked = new AtomicInteger();
    volatile boolean selfBlocked;
    volatile HostState state = HostState.RUNNING;
    private final Map<Long, ScsiTarget> targets = new ConcurrentHashMap<>();
    private final List<ScsiDevice> devices = new CopyOnWriteArrayList<>();
    /** {@code shost->starved_list}; guarded by itself. */
    private final ArrayDeque<ScsiDevice> starved = new ArrayDeque<>();
    private volatile boolean starvedNonEmpty;
    final AtomicLong hostBusyRefusals = new AtomicLong();

    /** {@code scsi_host_alloc} + {@code scsi_add_host}: validates the template and sets up the tag set. */
    public ScsiHost(ScsiHostTemplate template, LowLevelDriver lld, Kblockd kblockd) {
        this.template = template.validate();
        this.lld = lld;
        this.kblockd = kblockd;
        int flags = template.hostTagset ? TagSetFlags.TAG_HCTX_SHARED : 0;
        TagSetConfig cfg = new TagSetConfig(template.effectiveHwQueues(), template.canQueue, 0,
                template.timeoutMillis, flags, template.nrCtx);
        this.tagSet = new TagSet(cfg, new MidOps(this), kblockd);
        this.eh = new ErrorHandler(this);
    }

    public int hostNo() { return hostNo; }

    public ScsiHostTemplate template() { return template; }

    public LowLevelDriver lld() { return lld; }

    public TagSet tagSet() { return tagSet; }

    public Kblockd kblockd() { return kblockd; }

    public HostState state() { return state; }

    public int canQueue() { return tagSet.config().queueDepth(); }

    public int nrHwQueues() { return tagSet.config().nrHwQueues(); }

    public boolean hostTagset() { return tagSet.hostTagset(); }

    public int hostBlocked() { return hostBlocked.get(); }

    public ErrorHandler errorHandler() { return eh; }

    public List<ScsiDevice> devices() { return List.copyOf(devices); }

    public List<ScsiTarget> targets() { return new ArrayList<>(targets.values()); }

    /** {@code scsi_host_busy}: commands marked in flight, counted over every request of the tag set. */
    public int hostBusy() {
        int n = 0;
        for (ScsiCmnd c : cmnds) {
            if (c.isInflight()) {
                n++;
            }
        }
        return n;
    }

    /** {@code scsi_block_requests} / {@code scsi_unblock_requests}. */
    public void blockRequests(boolean block) {
        selfBlocked = block;
        if (!block) {
            runStarved();
            for (ScsiDevice d : devices) {
                if (d.q != null) {
                    d.q.runHwQueues(true);
                }
            }
        }
    }

    // ---- topology ----

    /** The target H:channel:id, created on first use. */
    public ScsiTarget target(int channel, int id) {
        if (id < 0 || id >= template.maxId) {
            throw new IllegalArgumentException("target id must be 0.." + (template.maxId - 1) + ", got " + id);
        }
        return targets.computeIfAbsent((long) channel << 32 | id, k -> new ScsiTarget(this, channel, id));
    }

    /** {@code scsi_alloc_sdev}: a LUN object to probe; no request queue yet. */
    public ScsiDevice allocDevice(ScsiTarget t, int lun) {
        if (lun < 0 || lun >= template.maxLun) {
            throw new IllegalArgumentException("lun must be 0.." + (template.maxLun - 1) + ", got " + lun);
        }
        return new ScsiDevice(this, t, lun);
    }

    /** {@code scsi_add_lun} / {@code scsi_sysfs_add_sdev}: gives a probed LUN its request queue and makes it RUNNING. */
    public ScsiDevice addDevice(ScsiDevice sdev) {
        if (sdev.q != null) {
            throw new IllegalStateException(sdev + " already added");
        }
        sdev.q = tagSet.addQueue("sd" + sdev.name);
        sdev.q.queuedata = sdev;
        sdev.q.setTimeoutMillis(template.timeoutMillis);
        sdev.waiters = new BudgetWaiters(sdev.q.nrHwQueues());
        sdev.requeueWork = kblockd.newWork(sdev.name + "/requeue", () -> requeueRun(sdev));
        sdev.target.devices.add(sdev);
        devices.add(sdev);
        sdev.state = DeviceState.RUNNING;
        return sdev;
    }

    /** Removes a LUN: waits for its I/O and closes its queue. */
    public void removeDevice(ScsiDevice sdev) {
        if (!devices.remove(sdev)) {
            return;
        }
        sdev.q.close();
        sdev.state = DeviceState.DEL;
        sdev.target.devices.remove(sdev);
        synchronized (starved) {
            starved.remove(sdev);
            starvedNonEmpty = !starved.isEmpty();
        }
        sdev.requeueWork.cancel();
    }

    // ---- dispatch-side readiness (scsi_queue_rq helpers) ----

    /** {@code scsi_host_queue_ready}: host_blocked idle countdown, self-block, then INFLIGHT. */
    boolean hostQueueReady(ScsiDevice sdev, ScsiCmnd cmd) {
        if (hostBlocked.get() > 0) {
            if (hostBusy() > 0) {
                addStarved(sdev);
                return false;
            }
            if (hostBlocked.decrementAndGet() > 0) {
                return false;
            }
        }
        if (selfBlocked) {
            addStarved(sdev);
            return false;
        }
        if (sdev.onStarved) {
            synchronized (starved) {
                starved.remove(sdev);
                sdev.onStarved = false;
                starvedNonEmpty = !starved.isEmpty();
            }
        }
        cmd.setInflight();
        return true;
    }

    void addStarved(ScsiDevice sdev) {
        synchronized (starved) {
            if (!sdev.onStarved) {
                starved.addLast(sdev);
                sdev.onStarved = true;
                starvedNonEmpty = true;
            }
        }
    }

    /** {@code scsi_set_blocked}. */
    void setBlocked(ScsiDevice sdev, int reason) {
        switch (reason) {
            case LowLevelDriver.HOST_BUSY -> {
                hostBusyRefusals.incrementAndGet();
                hostBlocked.set(template.maxHostBlocked);
            }
            case LowLevelDriver.TARGET_BUSY -> sdev.target.targetBlocked.set(template.maxTargetBlocked);
            default -> sdev.setBlocked(template.maxDeviceBlocked);
        }
    }

    // ---- completion (scsi_done → scsi_complete, digest §4.5) ----

    /** Called by {@link ScsiCmnd#done} on the completing thread, after it won the command. */
    void complete(ScsiCmnd cmd) {
        if (cmd.rq == null) {
            cmd.waiter.signal();
            return;
        }
        Disposition d = Disposition.decide(cmd);
        if (cmd.status() == ScsiStatus.TASK_SET_FULL && cmd.hostByte() == HostByte.DID_OK) {
            QueueDepthTracker.handleQueueFull(cmd.device);
        }
        dispose(cmd, d);
    }

    void dispose(ScsiCmnd cmd, Disposition d) {
        switch (d) {
            case SUCCESS -> finishCommand(cmd);
            case NEEDS_RETRY -> {
                if (retryAllowed(cmd)) {
                    cmd.retries++;
                    cmd.device.retriesNeedsRetry.incrementAndGet();
                    queueInsert(cmd, LowLevelDriver.DEVICE_BUSY);
                } else {
                    cmd.device.retriesExhausted.incrementAndGet();
                    finishCommand(cmd);
                }
            }
            case ADD_TO_MLQUEUE -> {
                if (withinRuntime(cmd)) {
                    cmd.device.retriesAddToMlqueue.incrementAndGet();
                    queueInsert(cmd, LowLevelDriver.DEVICE_BUSY);
                } else {
                    cmd.device.retriesExhausted.incrementAndGet();
                    finishCommand(cmd);
                }
            }
            case FAILED -> eh.add(cmd);
        }
    }

    /** {@code scsi_cmd_retry_allowed} plus the runtime cap of (allowed + 1) × timeout. */
    boolean retryAllowed(ScsiCmnd cmd) {
        return cmd.retries < cmd.allowed && withinRuntime(cmd);
    }

    private boolean withinRuntime(ScsiCmnd cmd) {
        long cap = (cmd.allowed + 1L) * template.timeoutMillis * 1_000_000L;
        return kblockd.nanoTime() - cmd.firstIssueNanos <= cap;
    }

    /**
     * {@code scsi_finish_command} + {@code scsi_end_request}: unbusy, the upper driver's status, the block request
     * ended (its budget and tag returned there), then blocked counters zeroed and {@code scsi_run_queue_async}.
     */
    void finishCommand(ScsiCmnd cmd) {
        ScsiDevice sdev = cmd.device;
        deviceUnbusy(cmd);
        sdev.iodoneCnt.incrementAndGet();
        if (cmd.result == 0) {
            QueueDepthTracker.handleRampUp(sdev);
        } else {
            sdev.ioerrCnt.incrementAndGet();
        }
        UpperDriver uld = sdev.uld;
        BlkStatus st = uld == null ? (cmd.result == 0 ? BlkStatus.OK : BlkStatus.IOERR) : uld.done(cmd);
        cmd.rq.complete(st);
        // After the budget went back inside complete() (a full-fence RMW, and volatile accesses are totally
        // ordered): a dispatcher that blocked the LUN after reading a stale busy count is seen here, and its
        // queue is run. Read first, write only when set (scsi_finish_command: `if (atomic_read(..)) atomic_set`),
        // so the common completion does not dirty the host, target and device lines every submitter reads.
        boolean hb = clearBlocked(hostBlocked);
        clearBlocked(sdev.target.targetBlocked);
        boolean db = clearBlocked(sdev.deviceBlocked);
        runQueueAsync(sdev, hb || db);
    }

    /**
     * Zeroes a blocked countdown if it is set; true if it was. A countdown step or a new block landing between the
     * read and the write is overwritten, as the former getAndSet(0) would have done had it run just after; a block
     * set after a read of zero survives, as it would had it landed just after that getAndSet.
     */
    static boolean clearBlocked(AtomicInteger blocked) {
        if (blocked.get() == 0) {
            return false;
        }
        blocked.set(0);
        return true;
    }

    /** A timed-out command that will not be retried: DID_TIME_OUT to the upper driver. */
    void finishTimedOut(ScsiCmnd cmd) {
        cmd.result = HostByte.result(HostByte.DID_TIME_OUT, 0);
        cmd.senseLength = 0;
        finishCommand(cmd);
    }

    /** {@code __scsi_queue_insert}: blocked counter, unbusy, requeue (kicked unless recovering). */
    void queueInsert(ScsiCmnd cmd, int reason) {
        ScsiDevice sdev = cmd.device;
        setBlocked(sdev, reason);
        deviceUnbusy(cmd);
        cmd.rq.requeue(state != HostState.RECOVERY);
    }

    /** {@code scsi_device_unbusy}: clears INFLIGHT (the EH may be waiting for it) and the target count. */
    void deviceUnbusy(ScsiCmnd cmd) {
        if (cmd.clearInflight()) {
            cmd.device.target.unbusy(cmd.device);
        }
        if (state == HostState.RECOVERY) {
            eh.checkWake();
        }
    }

    /** {@code scsi_run_queue_async}, with the {@code restarts} CAS of {@link RestartPolicy#KERNEL}. */
    void runQueueAsync(ScsiDevice sdev, boolean unblocked) {
        if (state == HostState.RECOVERY) {
            return;
        }
        if (sdev.target.singleLun || starvedNonEmpty) {
            sdev.requeueWork.queue(0);
            return;
        }
        if (template.restartPolicy == RestartPolicy.KERNEL) {
            // Read after the budget put (full fence); pairs with getBudget's increment-then-busy-read.
            int old = sdev.restarts.get();
            if (old != 0 && sdev.restarts.compareAndSet(old, 0)) {
                sdev.restartRuns.incrementAndGet();
                sdev.q.runHwQueues(true);
                return;
            }
        }
        if (unblocked) {
            sdev.q.runHwQueues(true);
        }
    }

    /** {@code scsi_requeue_run_queue}: the starved list, then this LUN's queues. */
    private void requeueRun(ScsiDevice sdev) {
        runStarved();
        sdev.q.runHwQueues(false);
    }

    /** {@code scsi_starved_list_run}: while the host is not blocked, run each starved LUN whose target has room. */
    void runStarved() {
        List<ScsiDevice> toRun = new ArrayList<>();
        synchronized (starved) {
            int n = starved.size();
            for (int i = 0; i < n && hostBlocked.get() == 0 && !selfBlocked; i++) {
                ScsiDevice d = starved.pollFirst();
                if (d.target.isBusy()) {
                    starved.addLast(d);
                    continue;
                }
                d.onStarved = false;
                toRun.add(d);
            }
            starvedNonEmpty = !starved.isEmpty();
        }
        for (ScsiDevice d : toRun) {
            d.q.runHwQueues(true);
        }
    }

    public boolean starvedListEmpty() {
        synchronized (starved) {
            return starved.isEmpty();
        }
    }

    /** Runs every LUN's queues (after recovery or a configuration change). */
    void runAllQueues() {
        runStarved();
        for (ScsiDevice d : devices) {
            d.q.kickRequeueList();
            d.q.runHwQueues(true);
        }
    }

    // ---- internal commands (scsi_execute_cmd) ----

    /**
     * Sends one command outside the block layer (scanning, error-handling TEST UNIT READY) and waits for it.
     * Busy refusals are retried until {@code timeoutMillis}; a command that does not complete in time is aborted
     * and reported as DID_TIME_OUT. Must not be called from a completion callback.
     */
    public ExecResult execute(ScsiDevice sdev, byte[] cdb, int cdbLength, int direction, ByteBuffer buf, int len,
                              long timeoutMillis) {
        ScsiCmnd cmd = new ScsiCmnd(this, null);
        cmd.device = sdev;
        sdev.prepare(cmd, cdb, cdbLength, direction, buf, buf == null ? 0 : buf.position(), len);
        cmd.waiter = new InternalWaiter();
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        for (;;) {
            cmd.markIssued();
            int rtn;
            try {
                rtn = lld.queueCommand(cmd);
            } catch (RuntimeException e) {
                cmd.done(HostByte.DID_ERROR, 0, null, 0, 0, len);
                rtn = LowLevelDriver.OK;
            }
            if (rtn == LowLevelDriver.OK) {
                break;
            }
            cmd.markIdle();
            if (System.nanoTime() - deadline > 0) {
                return new ExecResult(HostByte.result(HostByte.DID_BUS_BUSY, 0), new byte[0], len);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000L);
        if (!cmd.waiter.await(left)) {
            if (cmd.markTimedOut()) {
                lld.ehAbort(cmd);
                return new ExecResult(HostByte.result(HostByte.DID_TIME_OUT, 0), new byte[0], len);
            }
            cmd.waiter.await(Long.MAX_VALUE / 2_000_000L);   // the driver won the race and is completing it
        }
        byte[] sense = java.util.Arrays.copyOf(cmd.sense, cmd.senseLength);
        return new ExecResult(cmd.result, sense, cmd.resid);
    }

    /** The {@code stat} view of this host and its LUNs. */
    public ScsiHostSnapshot snapshot() {
        return ScsiHostSnapshot.of(this);
    }

    /** Removes every LUN (waiting for I/O), then frees the tag set. */
    @Override
    public void close() {
        state = HostState.DEL;
        for (ScsiDevice d : devices) {
            removeDevice(d);
        }
        eh.cancel();
        tagSet.close();
    }

    @Override
    public String toString() {
        return "host" + hostNo + "[" + lld.name() + ", can_queue=" + canQueue() + ", nr_hw_queues=" + nrHwQueues()
                + (hostTagset() ? ", host_tagset" : "") + "]";
    }
}
