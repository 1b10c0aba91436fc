package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.login.NegotiatedParameters;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.spec.TaskAttribute;
import io.hostwide.scsi.mid.ScsiCmnd;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Puts a SCSI command on a connection, RFC 7143 §11.3 and §3.2.4.2: the Command PDU with immediate data
 * (ImmediateData=Yes) and, with InitialR2T=No, unsolicited Data-Out up to FirstBurstLength; the rest of a write
 * waits for R2Ts. The command and its unsolicited data go out under one hold of the send lock. A command that is not
 * the last of its batch ({@code SCMD_LAST} clear) and has no Data-Out to follow stays in the send buffer: the batch
 * leaves in one write with its last command, or with {@code commit_rqs}.
 */
final class CommandSender {
    private final DataOutSender dataOut;
    private final InitiatorStats stats;

    CommandSender(DataOutSender dataOut, InitiatorStats stats) {
        this.dataOut = dataOut;
        this.stats = stats;
    }

    void send(IscsiConnection c, IscsiTask t, int itt) throws IOException {
        ScsiCmnd cmd = t.cmd;
        NegotiatedParameters p = c.params;
        boolean write = cmd.dataDirection() == ScsiCmnd.DIR_TO_DEVICE;
        boolean read = cmd.dataDirection() == ScsiCmnd.DIR_FROM_DEVICE;
        int len = cmd.transferLength();
        int immediate = 0;
        int unsolicited = 0;
        if (write && len > 0) {
            int firstBurst = Math.min(len, p.firstBurstLength());   // §13.14: all unsolicited data, immediate included
            if (p.immediateData()) {
                immediate = Math.min(firstBurst, p.targetMaxRecvDataSegmentLength());
            }
            if (!p.initialR2t()) {
                unsolicited = firstBurst - immediate;
            }
        }
        stats.commands.increment();
        if (immediate > 0) {
            stats.immediateDataPdus.increment();
        }
        // §11.3.1: F=1 unless unsolicited Data-Out PDUs follow.
        boolean fin = unsolicited == 0;
        c.lockSend();
        try {
            if (cmd.cdbLength() <= 16) {
                int at = c.beginHotLocked(immediate);
                HotHeaders.scsiCommand(c.sendBufferLocked(), at, fin, read, write, TaskAttribute.SIMPLE, t.lun, itt,
                        len, t.cmdSn, c.expStatSn(), cmd.cdb(), cmd.cdbLength(), immediate);
                boolean flush = cmd.isLast() || unsolicited > 0;
                if (!flush) {
                    stats.heldForBatch.increment();
                }
                c.sendHotLocked(at, cmd.buffer(), cmd.bufferPosition(), immediate, flush);
            } else {   // an extended CDB needs its AHS (§11.2.2.3): the record path
                ByteBuffer imm = immediate > 0 ? cmd.buffer().slice(cmd.bufferPosition(), immediate) : null;
                c.sendLocked(new ScsiCommand(false, fin, read, write, TaskAttribute.SIMPLE, t.lun, itt, len, t.cmdSn,
                        c.expStatSn(), ByteBuffer.wrap(cmd.cdb(), 0, cmd.cdbLength()), -1, imm));
            }
            if (unsolicited > 0) {
                dataOut.sendUnsolicited(c, t, itt, immediate, unsolicited);
            }
        } finally {
            c.unlockSend();
        }
    }
}
