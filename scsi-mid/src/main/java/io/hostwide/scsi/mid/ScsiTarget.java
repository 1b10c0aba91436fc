package io.hostwide.scsi.mid;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A SCSI target ({@code struct scsi_target}, H:C:T): its LUNs, the optional target-wide {@code can_queue} with
 * {@code target_busy}, {@code target_blocked} and {@code single_lun} exclusivity (digest §4.4).
 */
public final class ScsiTarget {
    final ScsiHost host;
    final int channel;
    final int id;
    final List<ScsiDevice> devices = new CopyOnWriteArrayList<>();
    /** 0 = no target-wide limit (target_busy not maintained). */
    volatile int canQueue;
    volatile boolean singleLun;
    final AtomicInteger targetBusy = new AtomicInteger();
    final AtomicInteger targetBlocked = new AtomicInteger();
    /** {@code starget_sdev_user}: with single_lun, the LUN that may have commands in flight. */
    volatile ScsiDevice sdevUser;

    ScsiTarget(ScsiHost host, int channel, int id) {
        this.host = host;
        this.channel = channel;
        this.id = id;
    }

    public ScsiHost host() { return host; }

    public int channel() { return channel; }

    public int id() { return id; }

    public List<ScsiDevice> devices() { return List.copyOf(devices); }

    public int targetBusy() { return targetBusy.get(); }

    public int targetBlocked() { return targetBlocked.get(); }

    /** Target-wide command limit ({@code starget->can_queue}; 0 = none). */
    public int canQueue() { return canQueue; }

    /** Target-wide command limit (0 = none). */
    public void canQueue(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("target can_queue must be >= 0, got " + n);
        }
        this.canQueue = n;
    }

    public void singleLun(boolean v) { this.singleLun = v; }

    /** {@code scsi_target_queue_ready}: false puts the device on the starved list. */
    boolean queueReady(ScsiDevice sdev) {
        if (singleLun) {
            synchronized (this) {
                ScsiDevice user = sdevUser;
                if (user != null && user != sdev) {
                    return false;
                }
                sdevUser = sdev;
            }
        }
        if (canQueue <= 0) {
            return true;
        }
        int busy = targetBusy.getAndIncrement();
        if (targetBlocked.get() > 0) {
            if (busy > 0 || targetBlocked.decrementAndGet() > 0) {
                targetBusy.decrementAndGet();
                return false;
            }
        }
        if (busy >= canQueue) {
            targetBusy.decrementAndGet();
            return false;
        }
        return true;
    }

    void unbusy(ScsiDevice sdev) {
        if (canQueue > 0) {
            targetBusy.decrementAndGet();
        }
        if (singleLun && sdev.busy() == 0) {
            synchronized (this) {
                if (sdevUser == sdev) {
                    sdevUser = null;
                }
            }
        }
    }

    boolean isBusy() {
        return (canQueue > 0 && targetBusy.get() >= canQueue) || targetBlocked.get() > 0;
    }

    @Override
    public String toString() {
        return host.hostNo + ":" + channel + ":" + id;
    }
}
