package io.hostwide.iscsi.initiator;

import io.hostwide.scsi.mid.EhResult;
import io.hostwide.scsi.mid.LowLevelDriver;
import io.hostwide.scsi.mid.ScsiCmnd;
import io.hostwide.scsi.mid.ScsiDevice;
import io.hostwide.scsi.mid.ScsiHost;
import io.hostwide.scsi.mid.ScsiTarget;

/**
 * The iSCSI low-level driver (iscsi_tcp/libiscsi's {@code queuecommand} and {@code eh_*_handler}s): the host is one
 * session, target id 0 is its target. Abort is ABORT TASK, device reset LOGICAL UNIT RESET, target reset TARGET WARM
 * RESET, host reset a session reinstatement (drop and log in again with the same ISID).
 */
public final class IscsiLld implements LowLevelDriver {
    private final InitiatorSession session;

    IscsiLld(InitiatorSession session) {
        this.session = session;
    }

    @Override
    public String name() {
        return "iscsi";
    }

    @Override
    public int queueCommand(ScsiCmnd cmd) {
        return session.queue(cmd);
    }

    @Override
    public void commitRqs(int hwQueue) {
        session.commit(hwQueue);
    }

    /** The submitting thread reads the connection of {@code hwQueue} itself (see {@link IscsiConnection#poll}). */
    @Override
    public int mqPoll(int hwQueue, long timeoutNanos) {
        return session.poll(hwQueue, timeoutNanos);
    }

    @Override
    public EhResult ehAbort(ScsiCmnd cmd) {
        return session.abort(cmd);
    }

    @Override
    public EhResult ehDeviceReset(ScsiDevice sdev) {
        return session.lunReset(sdev);
    }

    @Override
    public EhResult ehTargetReset(ScsiTarget starget) {
        return session.targetReset(starget);
    }

    @Override
    public EhResult ehHostReset(ScsiHost host) {
        return session.hostReset();
    }
}
