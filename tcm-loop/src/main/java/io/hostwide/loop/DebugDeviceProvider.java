package io.hostwide.loop;

import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDeviceProvider;

/** {@code debug:k=v,...} → disk number {@code disk} of a scsi_debug-style HBA ({@link DebugParams}). */
public final class DebugDeviceProvider implements BlockDeviceProvider {
    @Override
    public String kind() {
        return "debug";
    }

    @Override
    public BlockDevice open(String params) {
        LoopHbaConfig cfg = DebugParams.parse(params);
        LoopHba hba = LoopHba.create(cfg);
        return new HbaDisk(hba, hba.disk(cfg.disk()));
    }
}
