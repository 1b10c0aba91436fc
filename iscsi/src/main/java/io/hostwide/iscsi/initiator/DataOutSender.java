package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.pdu.DataOut;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.scsi.mid.ScsiCmnd;
import java.io.IOException;
import java.nio.ByteBuffer;

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
     * Sends one sequence on {@code c}. With {@code locked} the caller already holds the send lock (the unsolicited
     * data that follows a command PDU); otherwise the lock is taken per PDU so other commands interleave.
     */
    void send(IscsiConnection c, IscsiTask t, int itt, int ttt, int offset, int length, boolean locked)
            throws IOException {
        ScsiCmnd cmd = t.cmd;
        int max = c.params.targetMaxRecvDataSegmentLength();
        int dataSn = 0;
        for (int done = 0; done < length; dataSn++) {
            int n = Math.min(max, length - done);
            ByteBuffer slice = cmd.buffer().slice(cmd.bufferPosition() + offset + done, n);
            boolean fin = done + n == length;
            DataOut pdu = new DataOut(fin, t.lun, itt, ttt, c.expStatSn(), dataSn, offset + done, slice);
            if (locked) {
                c.sendLocked(pdu);
            } else {
                c.send(pdu);
            }
            done += n;
        }
    }

    /** Unsolicited Data-Out after a command: TTT is the reserved tag (RFC 7143 §11.7.4). */
    void sendUnsolicited(IscsiConnection c, IscsiTask t, int itt, int offset, int length) throws IOException {
        send(c, t, itt, Codes.RESERVED_TAG, offset, length, true);
        stats.unsolicitedDataOutPdus.add((length + c.params.targetMaxRecvDataSegmentLength() - 1)
                / c.params.targetMaxRecvDataSegmentLength());
    }
}
