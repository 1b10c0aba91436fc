package io.hostwide.iscsi.initiator;

import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDeviceProvider;
import io.hostwide.scsi.sd.HostedDisk;
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
    public static final class IscsiDisk extends HostedDisk<IscsiHba> {
        IscsiDisk(IscsiHba hba, ScsiDisk disk) {
            super(hba, disk);
        }
    }
}
