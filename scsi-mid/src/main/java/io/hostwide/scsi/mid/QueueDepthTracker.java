package io.hostwide.scsi.mid;

/**
 * Queue-full tracking and ramp-up of one LUN ({@code scsi_track_queue_full}, {@code scsi_handle_queue_ramp_up};
 * digest §4.5). Only hosts with {@code track_queue_depth} use it. Times are on the host's kblockd clock, so tests
 * step them; a "jiffy" is a millisecond.
 */
final class QueueDepthTracker {
    /** QUEUE FULLs inside one 16-jiffy window count once. */
    static final long WINDOW_NANOS = 16_000_000L;
    /** The depth changes only after more than this many events at the same target depth. */
    static final int EVENTS_BEFORE_CHANGE = 10;

    private final ScsiDevice sdev;
    private long lastQueueFullTime = Long.MIN_VALUE / 2;
    private int lastQueueFullDepth = -1;
    private int lastQueueFullCount;
    private long lastQueueRampUp = Long.MIN_VALUE / 2;
    private volatile long queueFullEvents;
    private volatile long depthChanges;
    /** No ramp-up before this time: lets GOOD completions skip the lock (a stale read only delays a ramp-up check). */
    private volatile long eligibleAt = Long.MIN_VALUE / 2;

    QueueDepthTracker(ScsiDevice sdev) {
        this.sdev = sdev;
    }

    long queueFullEvents() {
        return queueFullEvents;
    }

    long depthChanges() {
        return depthChanges;
    }

    /** {@code scsi_track_queue_full(sdev, depth)}: returns the new depth, or 0 when nothing changed. */
    synchronized int trackQueueFull(int depth, long now) {
        queueFullEvents++;
        if (Math.floorDiv(now, WINDOW_NANOS) == Math.floorDiv(lastQueueFullTime, WINDOW_NANOS)) {
            return 0;
        }
        lastQueueFullTime = now;
        eligibleAt = now + sdev.host.template.queueRampUpPeriodMillis * 1_000_000L;
        if (lastQueueFullDepth != depth) {
            lastQueueFullCount = 1;
            lastQueueFullDepth = depth;
        } else {
            lastQueueFullCount++;
        }
        if (lastQueueFullCount <= EVENTS_BEFORE_CHANGE) {
            return 0;
        }
        depthChanges++;
        return sdev.setQueueDepth(depth);
    }

    /** True when a ramp-up may happen now: below max, and both the last ramp-up and last QUEUE FULL are older than the period. */
    synchronized boolean mayRampUp(long now, long periodNanos) {
        if (sdev.queueDepth() >= sdev.rampUpLimit()) {
            return false;
        }
        return now - lastQueueRampUp >= periodNanos && now - lastQueueFullTime >= periodNanos;
    }

    synchronized void rampedUp(long now) {
        lastQueueRampUp = now;
        eligibleAt = now + sdev.host.template.queueRampUpPeriodMillis * 1_000_000L;
    }

    /** {@code scsi_handle_queue_full}: every LUN of the target tracks "its depth − 1". */
    static void handleQueueFull(ScsiDevice sdev) {
        ScsiHost host = sdev.host;
        if (!host.template.trackQueueDepth) {
            return;
        }
        long now = host.kblockd.nanoTime();
        for (ScsiDevice d : sdev.target.devices) {
            d.tracker.trackQueueFull(d.queueDepth() - 1, now);
        }
    }

    /** {@code scsi_handle_queue_ramp_up}, on GOOD completions: +1 for each LUN of the target at the same depth. */
    static void handleRampUp(ScsiDevice sdev) {
        ScsiHost host = sdev.host;
        if (!host.template.trackQueueDepth) {
            return;
        }
        long now = host.kblockd.nanoTime();
        if (now - sdev.tracker.eligibleAt < 0 || sdev.queueDepth() >= sdev.rampUpLimit()) {
            return;
        }
        long period = host.template.queueRampUpPeriodMillis * 1_000_000L;
        if (!sdev.tracker.mayRampUp(now, period)) {
            return;
        }
        int depth = sdev.queueDepth();
        for (ScsiDevice d : sdev.target.devices) {
            if (d.queueDepth() == depth && depth < d.rampUpLimit()) {
                d.setQueueDepth(depth + 1);
            }
        }
        sdev.tracker.rampedUp(now);
    }
}
