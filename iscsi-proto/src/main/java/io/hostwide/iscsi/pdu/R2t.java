package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/** Ready To Transfer, RFC 7143 §11.8. */
public record R2t(
        long lun, int initiatorTaskTag, int targetTransferTag, int statSn, int expCmdSn, int maxCmdSn, int r2tSn,
        int bufferOffset, int desiredDataTransferLength) implements Pdu {

    @Override
    public Opcode opcode() {
        return Opcode.R2T;
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        ResponseHeaders.r2t(out, at, lun, initiatorTaskTag, targetTransferTag, statSn, expCmdSn, maxCmdSn, r2tSn,
                bufferOffset, desiredDataTransferLength);
    }

    static R2t read(ByteBuffer b, int at) {
        return new R2t(b.getLong(at + LUN), b.getInt(at + INITIATOR_TASK_TAG), b.getInt(at + TARGET_TRANSFER_TAG),
                b.getInt(at + STAT_SN), b.getInt(at + EXP_CMD_SN), b.getInt(at + MAX_CMD_SN),
                b.getInt(at + Bhs.R2t.R2T_SN), b.getInt(at + Bhs.R2t.BUFFER_OFFSET),
                b.getInt(at + Bhs.R2t.DESIRED_DATA_TRANSFER_LENGTH));
    }
}
