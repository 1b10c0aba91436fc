package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Flags;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/** Text Request, RFC 7143 §11.10. */
public record TextRequest(
        boolean immediate, boolean fin, boolean cont, long lun, int initiatorTaskTag, int targetTransferTag,
        int cmdSn, int expStatSn, ByteBuffer data) implements Pdu {

    public TextRequest {
        data = Pdu.readOnly(data);
    }

    @Override
    public Opcode opcode() {
        return Opcode.TEXT_REQUEST;
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        int flags = (fin ? FINAL_BIT : 0) | (cont ? Flags.TEXT_CONTINUE : 0);
        Wire.header(out, at, Opcode.TEXT_REQUEST.code, immediate, flags, data.remaining());
        out.putLong(at + LUN, lun);
        out.putInt(at + INITIATOR_TASK_TAG, initiatorTaskTag);
        out.putInt(at + TARGET_TRANSFER_TAG, targetTransferTag);
        out.putInt(at + CMD_SN, cmdSn);
        out.putInt(at + EXP_STAT_SN, expStatSn);
    }

    static TextRequest read(ByteBuffer b, int at, ByteBuffer data) {
        int f = Wire.u8(b, at + FLAGS);
        return new TextRequest((b.get(at) & IMMEDIATE_BIT) != 0, (f & FINAL_BIT) != 0, (f & Flags.TEXT_CONTINUE) != 0,
                b.getLong(at + LUN), b.getInt(at + INITIATOR_TASK_TAG), b.getInt(at + TARGET_TRANSFER_TAG),
                b.getInt(at + CMD_SN), b.getInt(at + EXP_STAT_SN), data);
    }
}
