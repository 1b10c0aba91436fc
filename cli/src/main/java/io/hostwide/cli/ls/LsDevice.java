package io.hostwide.cli.ls;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.hostwide.blk.RequestQueue;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.scsi.mid.DeviceInfo;
import io.hostwide.scsi.mid.ScsiDevice;
import io.hostwide.scsi.mid.ScsiHost;
import io.hostwide.scsi.sd.ScsiDisk;

/**
 * One line of {@code hostwide ls}, lsscsi's columns: {@code [H:C:T:L]}, peripheral type, INQUIRY vendor, product
 * and revision, capacity, and the block device's name. A device that is not SCSI (the {@code null} kind) has no
 * address and no INQUIRY data: those fields are null. {@code detail} is there with {@code --verbose}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record LsDevice(String hctl, Integer host, Integer channel, Integer target, Integer lun, String type,
                       String vendor, String product, String revision, long sizeBytes, String name, Detail detail) {

    /**
     * The attributes {@code --verbose} adds: the sysfs ones ({@code queue_depth}, the host's {@code can_queue},
     * {@code nr_hw_queues}, {@code host_tagset}, {@code queue/rotational}, {@code queue/scheduler},
     * {@code queue/logical_block_size}) and what the scan read from VPD B0h/B2h: thin provisioning and the MAXIMUM
     * TRANSFER LENGTH (blocks, 0 = not reported). SCSI-only fields are null for a plain block device.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Detail(Integer queueDepth, Integer canQueue, int nrHwQueues, boolean hostTagset, boolean rotational,
                         String scheduler, int logicalBlockSize, Boolean thinProvisioned, Boolean lbpu, Boolean lbpws,
                         Long maxTransferBlocks) {
    }

    /** A scanned SCSI device; {@code name} is its disk's name when sd attached one, else null. */
    static LsDevice of(ScsiDevice d, boolean verbose) {
        DeviceInfo i = d.info();
        ScsiHost h = d.host();
        String name = d.upperDriver() instanceof ScsiDisk disk ? disk.name() : null;
        Detail detail = null;
        if (verbose) {
            RequestQueue q = d.queue();
            DeviceInfo disk = i != null && i.peripheralType() == 0 ? i : null;   // block attributes: disks only
            detail = new Detail(d.queueDepth(), h.canQueue(), h.nrHwQueues(), h.hostTagset(), q.isRotational(),
                    q.schedulerName(), disk == null ? q.logicalBlockSize() : disk.logicalBlockSize(),
                    disk == null ? null : disk.thinProvisioned(), disk == null ? null : disk.lbpu(),
                    disk == null ? null : disk.lbpws(), disk == null ? null : disk.maxTransferBlocks());
        }
        int c = d.target().channel();
        int t = d.target().id();
        String hctl = h.hostNo() + ":" + c + ":" + t + ":" + d.lun();
        if (i == null) {
            return new LsDevice(hctl, h.hostNo(), c, t, d.lun(), "no dev", null, null, null, 0, name, detail);
        }
        return new LsDevice(hctl, h.hostNo(), c, t, d.lun(), PeripheralTypes.name(i.peripheralType()),
                i.vendor().strip(), i.product().strip(), i.revision().strip(), i.capacityBytes(), name, detail);
    }

    /** A block device without SCSI under it (null_blk): the block line only. */
    static LsDevice ofBlock(BlockDevice b, boolean verbose) {
        Detail detail = null;
        if (verbose) {
            RequestQueue q = b.queue();
            detail = new Detail(null, null, q.nrHwQueues(), q.tagSet().hostTagset(), q.isRotational(),
                    q.schedulerName(), b.logicalBlockSize(), null, null, null, null);
        }
        return new LsDevice(null, null, null, null, null, "block", null, null, null, b.capacityBytes(), b.name(),
                detail);
    }
}
