package io.hostwide.target.loop;

import io.hostwide.blk.RequestQueue;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.scsi.sd.ScsiDisk;

/** The disk {@code BlockDevices.open} returns for {@code loop:}/{@code debug:}: closing it closes its whole HBA. */
public final class HbaDisk implements BlockDevice {
    private final LoopHba hba;
    private final ScsiDisk disk;

    HbaDisk(LoopHba hba, ScsiDisk disk) {
        this.hba = hba;
        this.disk = disk;
    }

    public LoopHba hba() { return hba; }

    public ScsiDisk disk() { return disk; }

    @Override
    public String name() { return disk.name(); }

    @Override
    public int logicalBlockSize() { return disk.logicalBlockSize(); }

    @Override
    public long capacityBytes() { return disk.capacityBytes(); }

    @Override
    public SubmitHandle openHandle() { return disk.openHandle(); }

    @Override
    public RequestQueue queue() { return disk.queue(); }

    @Override
    public void close() { hba.close(); }
}
