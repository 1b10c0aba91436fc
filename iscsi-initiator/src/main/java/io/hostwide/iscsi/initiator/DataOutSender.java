package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.spec.Codes;
import io.hostwide.scsi.mid.ScsiCmnd;
import java.io.IOException;

/**
 * Data-Out sequences, RFC 7143 §11.7: the bytes [offset, offset + length) of a write's buffer in PDUs of at most
 * the target's MaxRecvDataSegmentLength, DataSN from 0 within each sequence (§11.7.5), F on the last PDU; TTT
 * 0xffffffff for unsolicited data (§11.7.4), else the R2T's.
 */
final class DataOutSender {
    private final InitiatorStats stats;

    DataOutSender(InitiatorStats stats) {
        this.stats = stats;
    }

    /**
     * Sends one sequence on {@code c}, taking the send lock per PDU so other commands interleave (the lock is
     * reentrant: the unsolicited data that follows a command PDU goes out under the command's hold). The BHS is
     * written in place and the data copied from the command's buffer: nothing is allocated.
     */
    void send(IscsiConnection c, IscsiTask t, int itt, int ttt, int offset, int length) throws IOException {
        ScsiCmnd cmd = t.cmd;
        int max = c.params.targetMaxRecvDataSegmentLength();
        int dataSn = 0;
        for (int done = 0; done < length; dataSn++) {
            int n = Math.min(max, length - done);
            c.lockSend();
            try {
                int at = c.beginHotLocked(n);
                HotHeaders.dataOut(c.sendBufferLocked(), at, done + n == length, t.lun, itt, ttt, c.expStatSn(),
                        dataSn, offset + done, n);
                c.sendHotLocked(at, cmd.buffer(), cmd.bufferPosition() + offset + done, n, true);
            } finally {
                c.unlockSend();
            }
            done += n;
        }
    }

    /** Unsolicited Data-Out after a command: TTT is the reserved tag (RFC 7143 §11.7.4). */
    void sendUnsolicited(IscsiConnection c, IscsiTask t, int itt, int offset, int length) throws IOException {
        send(c, t, itt, Codes.RESERVED_TAG, offset, length);
        stats.unsolicitedDataOutPdus.add((length + c.params.targetMaxRecvDataSegmentLength() - 1)
                / c.params.targetMaxRecvDataSegmentLength());
    }
}
