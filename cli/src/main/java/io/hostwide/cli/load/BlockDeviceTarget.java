package io.hostwide.cli.load;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.ReqFlags;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.IoCallback;
import io.hostwide.blk.IoSchedulers;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDevices;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.scsi.sd.ScsiDisk;
import io.hostwide.loop.HbaDisk;
import io.hostwide.cli.util.DeviceSpecs;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Any block device of the {@link BlockDevices} registry ({@code null:...} now;
 * emulated SCSI disks and iSCSI LUNs register there too) as a bench target.
 */
public final class BlockDeviceTarget implements BenchTarget {

    private final String spec;
    private final BlockDevice device;

    private BlockDeviceTarget(String spec, BlockDevice device) {
        this.spec = spec;
        this.device = device;
    }

    /** Opens {@code kind[:key=value,...]}; a bad spec is an IllegalArgumentException naming --device. */
    public static BlockDeviceTarget open(String spec) {
        try {
            return new BlockDeviceTarget(spec, BlockDevices.open(spec));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--device: " + e.getMessage(), e);
        }
    }

    /** Refuses a scheduler name the block layer does not have, naming --scheduler, before any device is opened. */
    public static void checkScheduler(String name) {
        try {
            IoSchedulers.requireKnown(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--scheduler: " + e.getMessage(), e);
        }
    }

    /**
     * Switches the device's request queue to {@code name} ({@code queue/scheduler}); the queue is frozen and
     * quiesced for the switch, so it may also be called while I/O runs.
     */
    public void scheduler(String name) {
        checkScheduler(name);
        device.queue().setScheduler(name);
    }

    /** The opened device, for tools that look below the block layer ({@code ls} walks its SCSI hosts). */
    public BlockDevice device() {
        return device;
    }

    public static String kinds() {
        return BlockDevices.kinds();
    }

    @Override
    public String description() {
        return device.name() + " (" + DeviceSpecs.redact(spec) + "), " + device.capacityBytes() + " bytes, "
                + device.logicalBlockSize() + "-byte blocks";
    }

    @Override
    public int logicalBlockSize() {
        return device.logicalBlockSize();
    }

    @Override
    public long capacityBytes() {
        return device.capacityBytes();
    }

    @Override
    public JobQueue openJob(int jobIndex) {
        return jobQueue(device.openHandle(), true);
    }

    /** A job queue without batching (the lab's experiments, which study merging as the block layer does it alone). */
    public static JobQueue jobQueue(SubmitHandle handle) {
        return jobQueue(handle, false);
    }

    /**
     * A bench job's submission queue over one block-layer submit handle. With {@code batch}, a job's batch is a plug
     * (the driver sees SCMD_LAST on its last command only) and every I/O is REQ_NOMERGE: a plug would otherwise merge
     * neighbouring sequential I/Os into commands larger than --bs, which is not what the run asked to measure.
     */
    public static JobQueue jobQueue(SubmitHandle handle, boolean batch) {
        int flags = batch ? ReqFlags.NOMERGE : 0;
        return new JobQueue() {
            private Completion done;
            // One callback object per job: the slot travels as userData, so nothing is allocated per I/O.
            private final IoCallback callback = (slot, status) -> done.complete((int) slot, status == BlkStatus.OK);

            @Override
            public void submit(boolean write, long offset, int length, ByteBuffer buffer, int slot, Completion d) {
                done = d;
                handle.submit(write ? ReqOp.WRITE : ReqOp.READ, flags, offset, length, buffer, callback, slot);
            }

            @Override
            public void startBatch() {
                if (batch) {
                    handle.startPlug();
                }
            }

            @Override
            public void endBatch() {
                if (batch) {
                    handle.finishPlug();
                }
            }

            @Override
            public int poll(long timeoutNanos) {
                return handle.poll(timeoutNanos);
            }
        };
    }

    @Override
    public Object stat() {
        Map<String, Object> m = new LinkedHashMap<>();
        ScsiDisk disk = device instanceof HbaDisk h ? h.disk() : device instanceof ScsiDisk d ? d : null;
        if (disk != null) {
            // A SCSI disk: the host (can_queue, host_busy, blocked...) with its LUNs (queue_depth, device_busy...).
            m.put("scsi_host", disk.scsiDevice().host().snapshot());
        }
        m.put("tag_set", device.queue().tagSet().snapshot());
        m.put("request_queue", device.queue().snapshot());
        return m;
    }

    @Override
    public void close() {
        device.close();
    }
}
