package io.hostwide.loop;

import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDeviceProvider;

/** {@code loop:k=v,...} → a disk on the loop fabric over a RAM LUN ({@link LoopParams}). */
public final class LoopDeviceProvider implements BlockDeviceProvider {
    @Override
    public String kind() {
        return "loop";
    }

    @Override
    public BlockDevice open(String params) {
        LoopHbaConfig cfg = LoopParams.parse(params);
        LoopHba hba = LoopHba.create(cfg);
        return new HbaDisk(hba, hba.disk(cfg.disk()));
    }
}
