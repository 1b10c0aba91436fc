package io.hostwide.scsi.mid;

import io.hostwide.blk.TagSetConfig;

/**
 * The host template ({@code struct scsi_host_template} plus the {@code Scsi_Host} fields an LLD may override
 * before {@code scsi_add_host}, digest §4.1). Mutable until handed to {@link ScsiHost}; {@link #validate()}
 * names the offending field.
 */
public final class ScsiHostTemplate {
    /** Largest per-LUN budget map, like {@code scsi_device_max_queue_depth}'s cap (digest §4.2). */
    public static final int MAX_QUEUE_DEPTH = 4096;

    String name = "scsi";
    int canQueue = 192;
    int cmdPerLun = 0;
    int nrHwQueues = 1;
    boolean hostTagset;
    int sgTablesize = 128;
    int maxSectors = 1024;
    int maxSegmentSize = 65536;
    int maxHostBlocked = 7;
    int maxDeviceBlocked = 3;
    int maxTargetBlocked = 3;
    int maxId = 8;
    int maxLun = 8;
    boolean trackQueueDepth;
    RestartPolicy restartPolicy = RestartPolicy.KERNEL;
    boolean bypassBudgetNonRotational;
    long timeoutMillis = 30_000;
    long queueRampUpPeriodMillis = 120_000;
    long abortDelayMillis = 10;
    int allowedRetries = 5;
    long ehDeadlineMillis = -1;
    long resetSettleMillis = 10_000;
    boolean skipSettleDelay;
    int nrCtx;

    public ScsiHostTemplate name(String v) { this.name = v; return this; }

    /** {@code can_queue}: the tag-set depth (per hctx, or host-wide with {@link #hostTagset}). */
    public ScsiHostTemplate canQueue(int v) { this.canQueue = v; return this; }

    /** {@code cmd_per_lun}: initial per-LUN queue depth; 0 means 1, as in the kernel. */
    public ScsiHostTemplate cmdPerLun(int v) { this.cmdPerLun = v; return this; }

    /** {@code nr_hw_queues}; 0 means 1. */
    public ScsiHostTemplate nrHwQueues(int v) { this.nrHwQueues = v; return this; }

    /** {@code host_tagset}: can_queue is host-wide ({@code BLK_MQ_F_TAG_HCTX_SHARED}). */
    public ScsiHostTemplate hostTagset(boolean v) { this.hostTagset = v; return this; }

    public ScsiHostTemplate sgTablesize(int v) { this.sgTablesize = v; return this; }

    /** {@code max_sectors}, in 512-byte sectors. */
    public ScsiHostTemplate maxSectors(int v) { this.maxSectors = v; return this; }

    /** {@code max_segment_size}: bytes one scatter-gather element may carry (the kernel's default, 64 KiB). */
    public ScsiHostTemplate maxSegmentSize(int v) { this.maxSegmentSize = v; return this; }

    public ScsiHostTemplate maxHostBlocked(int v) { this.maxHostBlocked = v; return this; }

    public ScsiHostTemplate maxDeviceBlocked(int v) { this.maxDeviceBlocked = v; return this; }

    public ScsiHostTemplate maxId(int v) { this.maxId = v; return this; }

    public ScsiHostTemplate maxLun(int v) { this.maxLun = v; return this; }

    /** {@code track_queue_depth}: TASK SET FULL lowers queue_depth, GOOD ramps it back (digest §4.5). */
    public ScsiHostTemplate trackQueueDepth(boolean v) { this.trackQueueDepth = v; return this; }

    public ScsiHostTemplate restartPolicy(RestartPolicy v) { this.restartPolicy = v; return this; }

    /** Seed 004 / Ming Lei's RFC: non-rotational LUNs skip the per-LUN budget map (blk fair sharing only). */
    public ScsiHostTemplate bypassBudgetNonRotational(boolean v) { this.bypassBudgetNonRotational = v; return this; }

    /** Request timeout (the queue's {@code io_timeout}). */
    public ScsiHostTemplate timeoutMillis(long v) { this.timeoutMillis = v; return this; }

    /** {@code queue_ramp_up_period}. */
    public ScsiHostTemplate queueRampUpPeriodMillis(long v) { this.queueRampUpPeriodMillis = v; return this; }

    /** Delay between a timeout and its ABORT TASK ({@code HZ/100} in the kernel). */
    public ScsiHostTemplate abortDelayMillis(long v) { this.abortDelayMillis = v; return this; }

    /** {@code cmd->allowed} for block I/O (sd uses 5). */
    public ScsiHostTemplate allowedRetries(int v) { this.allowedRetries = v; return this; }

    /**
     * {@code eh_deadline}: once recovery has run this long (from the first timeout), error handling skips the
     * abort and the LUN/target resets and goes straight to a host reset; -1 (the default) turns it off, 0 means
     * "at once".
     */
    public ScsiHostTemplate ehDeadlineMillis(long v) { this.ehDeadlineMillis = v; return this; }

    /**
     * How long a LUN takes no new command after a host reset ({@code HOST_RESET_SETTLE_TIME}, 10 s): the kernel's
     * error handler sleeps this long; here each LUN refuses budget until then, so recovered commands are retried
     * after it too.
     */
    public ScsiHostTemplate resetSettleMillis(long v) { this.resetSettleMillis = v; return this; }

    /** {@code skip_settle_delay}: no settle time after a host reset (scsi_debug sets it). */
    public ScsiHostTemplate skipSettleDelay(boolean v) { this.skipSettleDelay = v; return this; }

    /** Software queues per request queue (0: the block layer's default). */
    public ScsiHostTemplate nrCtx(int v) { this.nrCtx = v; return this; }

    public int canQueue() { return canQueue; }

    public int cmdPerLun() { return cmdPerLun; }

    public int nrHwQueues() { return nrHwQueues; }

    public boolean hostTagset() { return hostTagset; }

    public boolean trackQueueDepth() { return trackQueueDepth; }

    public RestartPolicy restartPolicy() { return restartPolicy; }

    public boolean bypassBudgetNonRotational() { return bypassBudgetNonRotational; }

    public int maxSectors() { return maxSectors; }

    public int sgTablesize() { return sgTablesize; }

    public long ehDeadlineMillis() { return ehDeadlineMillis; }

    /** The settle time a host reset imposes: 0 with {@code skip_settle_delay}. */
    public long effectiveSettleMillis() { return skipSettleDelay ? 0 : resetSettleMillis; }

    public int maxSegmentSize() { return maxSegmentSize; }

    /** Checks every field; the message names the field as the kernel/sysfs does. */
    public ScsiHostTemplate validate() {
        if (canQueue < 1 || canQueue > TagSetConfig.MAX_DEPTH) {
            throw new IllegalArgumentException("can_queue must be 1.." + TagSetConfig.MAX_DEPTH + ", got " + canQueue);
        }
        if (cmdPerLun < 0 || cmdPerLun > MAX_QUEUE_DEPTH) {
            throw new IllegalArgumentException("cmd_per_lun must be 0.." + MAX_QUEUE_DEPTH + ", got " + cmdPerLun);
        }
        if (nrHwQueues < 0 || nrHwQueues > TagSetConfig.MAX_HW_QUEUES) {
            throw new IllegalArgumentException("nr_hw_queues must be 0.." + TagSetConfig.MAX_HW_QUEUES + ", got " + nrHwQueues);
        }
        if (sgTablesize < 1) {
            throw new IllegalArgumentException("sg_tablesize must be >= 1, got " + sgTablesize);
        }
        if (maxSectors < 8) {
            throw new IllegalArgumentException("max_sectors must be >= 8, got " + maxSectors);
        }
        if (maxSegmentSize < 4096) {
            throw new IllegalArgumentException("max_segment_size must be >= 4096, got " + maxSegmentSize);
        }
        if (maxHostBlocked < 1 || maxDeviceBlocked < 1 || maxTargetBlocked < 1) {
            throw new IllegalArgumentException("max_host_blocked/max_device_blocked/max_target_blocked must be >= 1");
        }
        if (maxId < 1 || maxLun < 1) {
            throw new IllegalArgumentException("max_id and max_lun must be >= 1, got " + maxId + ", " + maxLun);
        }
        if (timeoutMillis < 1) {
            throw new IllegalArgumentException("timeout must be >= 1 ms, got " + timeoutMillis);
        }
        if (queueRampUpPeriodMillis < 1) {
            throw new IllegalArgumentException("queue_ramp_up_period must be >= 1 ms, got " + queueRampUpPeriodMillis);
        }
        if (abortDelayMillis < 0 || allowedRetries < 0) {
            throw new IllegalArgumentException("abort delay and allowed retries must be >= 0");
        }
        if (ehDeadlineMillis < -1) {
            throw new IllegalArgumentException("eh_deadline must be -1 (off) or >= 0 ms, got " + ehDeadlineMillis);
        }
        if (resetSettleMillis < 0) {
            throw new IllegalArgumentException("reset settle time must be >= 0 ms, got " + resetSettleMillis);
        }
        if (restartPolicy == null) {
            throw new IllegalArgumentException("restart_policy must be set");
        }
        return this;
    }

    int effectiveHwQueues() {
        return nrHwQueues == 0 ? 1 : nrHwQueues;
    }

    int initialDepth() {
        return cmdPerLun == 0 ? 1 : cmdPerLun;
    }

    /** Budget-map capacity: max(can_queue, cmd_per_lun) bounded by {@link #MAX_QUEUE_DEPTH}. */
    int budgetCapacity() {
        return Math.min(MAX_QUEUE_DEPTH, Math.max(canQueue, initialDepth()));
    }
}
