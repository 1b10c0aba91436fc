package io.hostwide.cli.lab;

import io.hostwide.loop.DebugParams;
import io.hostwide.loop.LoopHba;
import io.hostwide.loop.LoopHbaConfig;

/** Emulated HBAs for the experiments, built from {@code debug:} (scsi_debug) knob strings. */
final class Hbas {
    private Hbas() {
    }

    /**
     * A scsi_debug-model HBA with every LUN scanned; the caller closes it. The scan runs with no latency and the
     * knobs' {@code delay}/{@code ndelay} is written afterwards, as one would write scsi_debug's ndelay in sysfs
     * after loading it: the scan's dozens of serial commands per LUN would otherwise take seconds at the 25 ms of
     * fair-share, per cell, and measure nothing.
     */
    static LoopHba debug(String knobs) {
        LoopHbaConfig cfg = DebugParams.parse(knobs);
        LoopHba hba = LoopHba.create(cfg.withDelayNanos(0));
        try {
            hba.setDelayNanos(cfg.delayNanos());
        } catch (RuntimeException e) {
            hba.close();
            throw e;
        }
        return hba;
    }

    static double mbPerSecond(double bytesPerSecond) {
        return bytesPerSecond / 1e6;
    }

    static double kiops(double iops) {
        return iops / 1e3;
    }
}
