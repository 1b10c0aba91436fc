package io.hostwide.cli.lab;

import io.hostwide.target.loop.DebugParams;
import io.hostwide.target.loop.LoopHba;

/** Emulated HBAs for the experiments, built from {@code debug:} (scsi_debug) knob strings. */
final class Hbas {
    private Hbas() {
    }

    /** A scsi_debug-model HBA with every LUN scanned; the caller closes it. */
    static LoopHba debug(String knobs) {
        return LoopHba.create(DebugParams.parse(knobs));
    }

    static double mbPerSecond(double bytesPerSecond) {
        return bytesPerSecond / 1e6;
    }

    static double kiops(double iops) {
        return iops / 1e3;
    }
}
