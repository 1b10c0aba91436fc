package io.hostwide.tcm.archfixture;

import io.hostwide.scsi.sd.ScsiDisk;

/** LayeringTest's fixture, never run: target-core code holding an initiator-side disk. */
public final class TargetReachesInitiator {
    ScsiDisk disk;
}
