package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/** NOP-Out, RFC 7143 §11.18: a ping (ITT valid) or the answer to a NOP-In (TTT valid). */
public record NopOut(
        boolean immediate, long lun, int initiatorTaskTag, int targetTransferTag, int cmdSn, int expStatSn,
        ByteBuffer data) implements Pdu {

    public NopOut {
        data = Pdu.readOnly(data);
    }

    @Override
    public Opcode opcode() {
        return Opcode.NOP_OUT;
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        Wire.header(out, at, Opcode.NOP_OUT.code, immediate, FINAL_BIT, data.remaining());
        out.putLong(at + LUN, lun);
        out.putInt(at + INITIATOR_TASK_TAG, initiatorTaskTag);
        out.putInt(at + TARGET_TRANSFER_TAG, targetTransferTag);
        out.putInt(at + CMD_SN, cmdSn);
        out.putInt(at + EXP_STAT_SN, expStatSn);
    }

    static NopOut read(ByteBuffer b, int at, ByteBuffer data) {
        return new NopOut((b.get(at) & IMMEDIATE_BIT) != 0, b.getLong(at + LUN), b.getInt(at + INITIATOR_TASK_TAG),
                b.getInt(at + TARGET_TRANSFER_TAG), b.getInt(at + CMD_SN), b.getInt(at + EXP_STAT_SN), data);
    }
}
