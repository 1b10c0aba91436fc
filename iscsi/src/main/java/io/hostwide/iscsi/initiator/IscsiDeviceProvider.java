package io.hostwide.iscsi.initiator;

import io.hostwide.blk.RequestQueue;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDeviceProvider;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.scsi.sd.ScsiDisk;
import java.io.IOException;

/**
 * {@code iscsi:url=iscsi://HOST[:PORT]/IQN/LUN[,user=...,secret=...]} → the LUN's disk over an initiator session
 * ({@link IscsiParams} lists the knobs). Closing the device logs the session out.
 */
public final class IscsiDeviceProvider implements BlockDeviceProvider {
    @Override
    public String kind() {
        return "iscsi";
    }

    @Override
    public BlockDevice open(String params) {
        InitiatorConfig cfg = IscsiParams.parse(params);
        IscsiHba hba;
        try {
            hba = IscsiHba.connect(cfg);
        } catch (IOException e) {
            throw new IscsiOpenException("iscsi: " + e.getMessage(), e);
        }
        try {
            return new IscsiDisk(hba, hba.disk(cfg.url().lun()));
        } catch (IllegalArgumentException e) {
            hba.close();
            throw new IscsiOpenException("iscsi: " + e.getMessage(), e);
        }
    }

    /** The LUN's disk; closing it closes the whole session. */
    public static final class IscsiDisk implements BlockDevice {
        private final IscsiHba hba;
        private final ScsiDisk disk;

        IscsiDisk(IscsiHba hba, ScsiDisk disk) {
            this.hba = hba;
            this.disk = disk;
        }

        public IscsiHba hba() { return hba; }

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
}
