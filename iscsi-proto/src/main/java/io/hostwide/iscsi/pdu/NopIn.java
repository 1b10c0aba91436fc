package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/** NOP-In, RFC 7143 §11.19: the answer to a NOP-Out ping, or a target ping (TTT valid, ITT 0xffffffff). */
public record NopIn(
        long lun, int initiatorTaskTag, int targetTransferTag, int statSn, int expCmdSn, int maxCmdSn,
        ByteBuffer data) implements Pdu {

    public NopIn {
        data = Pdu.readOnly(data);
    }

    @Override
    public Opcode opcode() {
        return Opcode.NOP_IN;
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        Wire.header(out, at, Opcode.NOP_IN.code, false, FINAL_BIT, data.remaining());
        out.putLong(at + LUN, lun);
        out.putInt(at + INITIATOR_TASK_TAG, initiatorTaskTag);
        out.putInt(at + TARGET_TRANSFER_TAG, targetTransferTag);
        out.putInt(at + STAT_SN, statSn);
        out.putInt(at + EXP_CMD_SN, expCmdSn);
        out.putInt(at + MAX_CMD_SN, maxCmdSn);
    }

    static NopIn read(ByteBuffer b, int at, ByteBuffer data) {
        return new NopIn(b.getLong(at + LUN), b.getInt(at + INITIATOR_TASK_TAG), b.getInt(at + TARGET_TRANSFER_TAG),
                b.getInt(at + STAT_SN), b.getInt(at + EXP_CMD_SN), b.getInt(at + MAX_CMD_SN), data);
    }
}
