package io.hostwide.scsi.mid;

import io.hostwide.blk.Hctx;
import io.hostwide.blk.RequestQueue;
import io.hostwide.sbitmap.Sbitmap;
import io.hostwide.sbitmap.SbitmapConfig;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A logical unit ({@code struct scsi_device}, H:C:T:L) with its request queue on the host's tag set.
 *
 * <h2>Budget</h2>
 * {@code device_busy} is the weight of {@link #budgetMap}, a non-blocking {@link Sbitmap} sized to
 * {@code queue_depth} (digest §4.2, §4.3). The block layer takes a token before it dequeues a request
 * ({@link #getBudget}) and returns it on hand-back or when the request is freed ({@link #putBudget}). With
 * {@code bypassBudget} (non-rotational LUN on a host with {@link ScsiHostTemplate#bypassBudgetNonRotational}) the
 * map is skipped and only the tag set's fair sharing limits the LUN (seed 004).
 */
public final class ScsiDevice {
    /** Token handed out when the budget map is bypassed; never a map bit. */
    static final int BYPASS_TOKEN = Integer.MAX_VALUE;

    final ScsiHost host;
    final ScsiTarget target;
    final int lun;
    final String name;
    RequestQueue q;
    final Sbitmap budgetMap;
    final int maxQueueDepth;
    private volatile int queueDepth;
    /** {@code sdev->max_queue_depth}: the depth ramp-up returns to (the initial or last user-set depth). */
    private volatile int rampUpLimit;
    final AtomicInteger deviceBlocked = new AtomicInteger();
    /** {@code sdev->restarts} ({@link RestartPolicy#KERNEL}). */
    final AtomicInteger restarts = new AtomicInteger();
    BudgetWaiters waiters;
    volatile DeviceState state = DeviceState.CREATED;
    volatile boolean rotational = true;
    volatile boolean bypassBudget;
    volatile DeviceInfo info;
    volatile UpperDriver uld;
    final QueueDepthTracker tracker;
    final AtomicLong iorequestCnt = new AtomicLong();
    final AtomicLong iodoneCnt = new AtomicLong();
    final AtomicLong ioerrCnt = new AtomicLong();
    final AtomicLong iotmoCnt = new AtomicLong();
    /** Completions that won the {@code restarts} CAS and re-ran every hardware queue. */
    final AtomicLong restartRuns = new AtomicLong();
    /** Re-issues by disposition: NEEDS_RETRY, ADD_TO_MLQUEUE, and after error handling (abort or reset). */
    final AtomicLong retriesNeedsRetry = new AtomicLong();
    final AtomicLong retriesAddToMlqueue = new AtomicLong();
    final AtomicLong retriesAfterEh = new AtomicLong();
    /** FAILED dispositions and timeouts handed to error handling. */
    final AtomicLong failedToEh = new AtomicLong();
    /** Commands finished because their retries (or the runtime cap) ran out. */
    final AtomicLong retriesExhausted = new AtomicLong();
    /** No new command before this kblockd time (settle after a host reset); 0 when not settling. */
    final AtomicLong settleUntilNanos = new AtomicLong();
    /** {@code starved_entry} membership; guarded by the host's starved list. */
    boolean onStarved;
    io.hostwide.blk.exec.DelayedWork requeueWork;

    ScsiDevice(ScsiHost host, ScsiTarget target, int lun) {
        this.host = host;
        this.target = target;
        this.lun = lun;
        this.name = host.hostNo + ":" + target.channel + ":" + target.id + ":" + lun;
        ScsiHostTemplate t = host.template;
        this.maxQueueDepth = t.budgetCapacity();
        int initial = Math.min(t.initialDepth(), maxQueueDepth);
        // Shift from the initial depth (digest §4.2) so a small depth still spreads over several words.
        this.budgetMap = new Sbitmap(new SbitmapConfig(initial, maxQueueDepth, -1, false, Math.max(1, t.effectiveHwQueues())));
        this.queueDepth = initial;
        this.rampUpLimit = initial;
        this.tracker = new QueueDepthTracker(this);
    }

    public String name() { return name; }

    public ScsiHost host() { return host; }

    public ScsiTarget target() { return target; }

    public int lun() { return lun; }

    public RequestQueue queue() { return q; }

    public DeviceState state() { return state; }

    public DeviceInfo info() { return info; }

    public int queueDepth() { return queueDepth; }

    /** Largest depth the budget map can take. */
    public int maxQueueDepth() { return maxQueueDepth; }

    /** The depth queue-full ramp-up climbs back to ({@code max_queue_depth}). */
    public int rampUpLimit() { return rampUpLimit; }

    /** {@code device_busy}: budget tokens held (the map's weight); in-flight requests when the map is bypassed. */
    public int busy() {
        return bypassBudget ? q.inFlight() : budgetMap.weight();
    }

    public int deviceBlocked() { return deviceBlocked.get(); }

    public int restarts() { return restarts.get(); }

    /** How many completions re-ran all hardware queues through {@code restarts}. */
    public long restartRuns() { return restartRuns.get(); }

    /** QUEUE FULL / TASK SET FULL statuses seen, and how often they lowered the depth. */
    public long queueFullEvents() { return tracker.queueFullEvents(); }

    public long queueDepthChanges() { return tracker.depthChanges(); }

    public boolean rotational() { return rotational; }

    public boolean budgetBypassed() { return bypassBudget; }

    public long iorequestCnt() { return iorequestCnt.get(); }

    public long iodoneCnt() { return iodoneCnt.get(); }

    public long ioerrCnt() { return ioerrCnt.get(); }

    public long iotmoCnt() { return iotmoCnt.get(); }

    public UpperDriver upperDriver() { return uld; }

    /** Binds the upper-level driver (sd) that prepares this LUN's block requests. */
    public void attach(UpperDriver driver) { this.uld = driver; }

    /** Rotational flag from VPD B1h (or the emulated HBA); also decides the budget bypass. */
    public void rotational(boolean v) {
        this.rotational = v;
        this.bypassBudget = !v && host.template.bypassBudgetNonRotational;
    }

    /**
     * {@code scsi_change_queue_depth} as the sysfs {@code queue_depth} write: clamps to 1..max, stores it, resizes
     * the budget map and makes it the ramp-up limit. Tokens above a shrunk depth stay held until returned.
     * Returns the depth in effect.
     */
    public int changeQueueDepth(int depth) {
        int d = setQueueDepth(depth);
        rampUpLimit = d;
        return d;
    }

    /** Depth change by queue-full tracking or ramp-up: leaves {@link #rampUpLimit()} alone. */
    int setQueueDepth(int depth) {
        int d = Math.max(1, Math.min(depth, maxQueueDepth));
        synchronized (budgetMap) {
            queueDepth = d;
            budgetMap.resize(d);
        }
        return d;
    }

    /**
     * Prepares {@code cmd} ({@code init_command}): CDB, data direction and the data window
     * {@code buf[pos .. pos+len)}.
     */
    public void prepare(ScsiCmnd cmd, byte[] cdb, int cdbLength, int direction, ByteBuffer buf, int pos, int len) {
        if (cdbLength < 6 || cdbLength > cmd.cdb.length) {
            throw new IllegalArgumentException("CDB length must be 6.." + cmd.cdb.length + ", got " + cdbLength);
        }
        System.arraycopy(cdb, 0, cmd.cdb, 0, cdbLength);
        cmd.cdbLength = cdbLength;
        cmd.dataDirection = direction;
        cmd.buffer = buf;
        cmd.bufferPosition = pos;
        cmd.transferLength = len;
    }

    // ---- budget (scsi_mq_get_budget / scsi_mq_put_budget, digest §4.3) ----

    int getBudget(Hctx h) {
        long settle = settleUntilNanos.get();
        if (settle != 0 && settling(settle)) {
            return -1;
        }
        int token = devQueueReady(h);
        if (token >= 0) {
            return token;
        }
        if (host.template.restartPolicy == RestartPolicy.KERNEL) {
            restarts.incrementAndGet();
            // Full-fence RMW above orders the restarts write before the device_busy read below; pairs with the
            // put (sbitmap clear, full fence) before the restarts read in ScsiHost.runQueueAsync.
            if (busy() == 0) {
                // Nobody will complete to restart us: re-run after SCSI_QUEUE_DELAY. While blocked this is the
                // idle countdown's next dispatch attempt.
                q.delayRunHwQueues(ScsiHost.QUEUE_DELAY_MS);
            }
            return -1;
        }
        waiters.add(h.queueNum());
        // Full-fence RMW above; the re-try below pairs with putBudget's clear-then-scan (BudgetWaiters).
        token = devQueueReady(h);
        if (token >= 0) {
            // The bit stays: another dispatcher of this hctx may have set it too; a spare wake-up costs one run.
            return token;
        }
        if (busy() == 0) {
            q.delayRunHwQueues(ScsiHost.QUEUE_DELAY_MS);   // blocked and idle: the countdown needs attempts
        }
        return -1;
    }

    /** True (and a queue run booked for the end) while the LUN settles after a reset; clears the mark after. */
    private boolean settling(long until) {
        long left = until - host.kblockd.nanoTime();
        if (left > 0) {
            q.delayRunHwQueues(Math.max(1, (left + 999_999) / 1_000_000));
            return true;
        }
        settleUntilNanos.compareAndSet(until, 0);   // a newer mark set meanwhile stays
        return false;
    }

    /** Starts a settle period of {@code millis} (error handling, after a host reset). */
    void settle(long millis) {
        if (millis > 0) {
            settleUntilNanos.set(host.kblockd.nanoTime() + millis * 1_000_000L);
        }
    }

    public long retriesNeedsRetry() { return retriesNeedsRetry.get(); }

    public long retriesAddToMlqueue() { return retriesAddToMlqueue.get(); }

    public long retriesAfterEh() { return retriesAfterEh.get(); }

    public long failedToEh() { return failedToEh.get(); }

    public long retriesExhausted() { return retriesExhausted.get(); }

    /** True while new commands wait for the settle time after a reset. */
    public boolean isSettling() {
        long s = settleUntilNanos.get();
        return s != 0 && s - host.kblockd.nanoTime() > 0;
    }

    /** {@code scsi_dev_queue_ready}: a budget token, honouring the idle countdown of {@code device_blocked}. */
    private int devQueueReady(Hctx h) {
        int token;
        if (bypassBudget) {
            token = BYPASS_TOKEN;
        } else {
            token = budgetMap.get(h.queueNum() % budgetMap.nrHints());
            if (token < 0) {
                return -1;
            }
        }
        if (deviceBlocked.get() > 0) {
            // Counts down only on dispatch attempts while the LUN is otherwise idle (digest §4.5).
            int held = bypassBudget ? q.inFlight() : budgetMap.weight() - 1;
            if (held > 0 || deviceBlocked.decrementAndGet() > 0) {
                releaseToken(token);
                return -1;
            }
        }
        return token;
    }

    void putBudget(int token) {
        releaseToken(token);
        if (host.template.restartPolicy == RestartPolicy.WAKE_ONE) {
            // The sbitmap put is a full-fence RMW: pairs with the waiter's set-bit-then-retry.
            VarHandle.fullFence();
            if (waiters.any()) {
                waiters.wakeOne(q);
            }
        }
    }

    private void releaseToken(int token) {
        if (token != BYPASS_TOKEN) {
            budgetMap.put(token, 0);
        }
    }

    void setBlocked(int v) {
        deviceBlocked.set(v);
    }

    /** The {@code stat} view of this LUN. */
    public ScsiDeviceSnapshot snapshot() {
        return ScsiDeviceSnapshot.of(this);
    }

    @Override
    public String toString() {
        return "sdev " + name;
    }
}
