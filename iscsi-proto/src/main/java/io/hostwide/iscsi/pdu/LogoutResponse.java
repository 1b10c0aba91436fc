package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/** Logout Response, RFC 7143 §11.15. */
public record LogoutResponse(
        int response, int initiatorTaskTag, int statSn, int expCmdSn, int maxCmdSn, int time2Wait, int time2Retain)
        implements Pdu {

    @Override
    public Opcode opcode() {
        return Opcode.LOGOUT_RESPONSE;
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        Wire.header(out, at, Opcode.LOGOUT_RESPONSE.code, false, FINAL_BIT, 0);
        out.put(at + Bhs.Logout.RESPONSE, (byte) response);
        out.putInt(at + INITIATOR_TASK_TAG, initiatorTaskTag);
        out.putInt(at + STAT_SN, statSn);
        out.putInt(at + EXP_CMD_SN, expCmdSn);
        out.putInt(at + MAX_CMD_SN, maxCmdSn);
        out.putShort(at + Bhs.Logout.TIME2WAIT, (short) time2Wait);
        out.putShort(at + Bhs.Logout.TIME2RETAIN, (short) time2Retain);
    }

    static LogoutResponse read(ByteBuffer b, int at) {
        return new LogoutResponse(Wire.u8(b, at + Bhs.Logout.RESPONSE), b.getInt(at + INITIATOR_TASK_TAG),
                b.getInt(at + STAT_SN), b.getInt(at + EXP_CMD_SN), b.getInt(at + MAX_CMD_SN),
                Wire.u16(b, at + Bhs.Logout.TIME2WAIT), Wire.u16(b, at + Bhs.Logout.TIME2RETAIN));
    }
}
