package io.hostwide.scsi.mid.archfixture;

import io.hostwide.tcm.spi.SenseReason;

/** LayeringTest's fixture, never run: initiator-side code using the target core's error vocabulary. */
public final class InitiatorReachesTarget {
    SenseReason reason;
}
