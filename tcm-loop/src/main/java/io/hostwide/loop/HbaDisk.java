package io.hostwide.loop;

import io.hostwide.scsi.sd.HostedDisk;
import io.hostwide.scsi.sd.ScsiDisk;

/** The disk {@code BlockDevices.open} returns for {@code loop:}/{@code debug:}: closing it closes its whole HBA. */
public final class HbaDisk extends HostedDisk<LoopHba> {
    HbaDisk(LoopHba hba, ScsiDisk disk) {
        super(hba, disk);
    }
}
