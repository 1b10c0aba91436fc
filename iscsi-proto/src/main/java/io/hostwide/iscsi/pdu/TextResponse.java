package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Flags;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/** Text Response, RFC 7143 §11.11. */
public record TextResponse(
        boolean fin, boolean cont, long lun, int initiatorTaskTag, int targetTransferTag, int statSn, int expCmdSn,
        int maxCmdSn, ByteBuffer data) implements Pdu {

    public TextResponse {
        data = Pdu.readOnly(data);
    }

    @Override
    public Opcode opcode() {
        return Opcode.TEXT_RESPONSE;
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        int flags = (fin ? FINAL_BIT : 0) | (cont ? Flags.TEXT_CONTINUE : 0);
        Wire.header(out, at, Opcode.TEXT_RESPONSE.code, false, flags, data.remaining());
        out.putLong(at + LUN, lun);
        out.putInt(at + INITIATOR_TASK_TAG, initiatorTaskTag);
        out.putInt(at + TARGET_TRANSFER_TAG, targetTransferTag);
        out.putInt(at + STAT_SN, statSn);
        out.putInt(at + EXP_CMD_SN, expCmdSn);
        out.putInt(at + MAX_CMD_SN, maxCmdSn);
    }

    static TextResponse read(ByteBuffer b, int at, ByteBuffer data) {
        int f = Wire.u8(b, at + FLAGS);
        return new TextResponse((f & FINAL_BIT) != 0, (f & Flags.TEXT_CONTINUE) != 0, b.getLong(at + LUN),
                b.getInt(at + INITIATOR_TASK_TAG), b.getInt(at + TARGET_TRANSFER_TAG), b.getInt(at + STAT_SN),
                b.getInt(at + EXP_CMD_SN), b.getInt(at + MAX_CMD_SN), data);
    }
}
