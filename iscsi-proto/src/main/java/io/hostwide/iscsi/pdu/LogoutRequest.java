package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/** Logout Request, RFC 7143 §11.14; reason codes in {@link io.hostwide.iscsi.spec.Codes}. */
public record LogoutRequest(
        boolean immediate, int reasonCode, int initiatorTaskTag, int cid, int cmdSn, int expStatSn) implements Pdu {

    @Override
    public Opcode opcode() {
        return Opcode.LOGOUT_REQUEST;
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        Wire.header(out, at, Opcode.LOGOUT_REQUEST.code, immediate, FINAL_BIT | (reasonCode & 0x7f), 0);
        out.putInt(at + INITIATOR_TASK_TAG, initiatorTaskTag);
        out.putShort(at + Bhs.Logout.CID, (short) cid);
        out.putInt(at + CMD_SN, cmdSn);
        out.putInt(at + EXP_STAT_SN, expStatSn);
    }

    static LogoutRequest read(ByteBuffer b, int at) {
        return new LogoutRequest((b.get(at) & IMMEDIATE_BIT) != 0, b.get(at + Bhs.Logout.REASON_CODE) & 0x7f,
                b.getInt(at + INITIATOR_TASK_TAG), Wire.u16(b, at + Bhs.Logout.CID), b.getInt(at + CMD_SN),
                b.getInt(at + EXP_STAT_SN));
    }
}
