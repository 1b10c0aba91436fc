package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Flags;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/** Login Response, RFC 7143 §11.13. */
public record LoginResponse(
        boolean transit, boolean cont, int csg, int nsg, int versionMax, int versionActive, long isid, int tsih,
        int initiatorTaskTag, int statSn, int expCmdSn, int maxCmdSn, int statusClass, int statusDetail,
        ByteBuffer data) implements Pdu {

    public LoginResponse {
        data = Pdu.readOnly(data);
    }

    @Override
    public Opcode opcode() {
        return Opcode.LOGIN_RESPONSE;
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        int flags = (transit ? Flags.LOGIN_TRANSIT : 0) | (cont ? Flags.LOGIN_CONTINUE : 0)
                | ((csg << Flags.LOGIN_CSG_SHIFT) & Flags.LOGIN_CSG_MASK) | (nsg & Flags.LOGIN_NSG_MASK);
        Wire.header(out, at, Opcode.LOGIN_RESPONSE.code, false, flags, data.remaining());
        out.put(at + Bhs.Login.VERSION_MAX, (byte) versionMax);
        out.put(at + Bhs.Login.VERSION_ACTIVE, (byte) versionActive);
        Wire.put48(out, at + Bhs.Login.ISID, isid);
        out.putShort(at + Bhs.Login.TSIH, (short) tsih);
        out.putInt(at + INITIATOR_TASK_TAG, initiatorTaskTag);
        out.putInt(at + STAT_SN, statSn);
        out.putInt(at + EXP_CMD_SN, expCmdSn);
        out.putInt(at + MAX_CMD_SN, maxCmdSn);
        out.put(at + Bhs.Login.STATUS_CLASS, (byte) statusClass);
        out.put(at + Bhs.Login.STATUS_DETAIL, (byte) statusDetail);
    }

    static LoginResponse read(ByteBuffer b, int at, ByteBuffer data) {
        int f = Wire.u8(b, at + FLAGS);
        return new LoginResponse((f & Flags.LOGIN_TRANSIT) != 0, (f & Flags.LOGIN_CONTINUE) != 0,
                (f & Flags.LOGIN_CSG_MASK) >>> Flags.LOGIN_CSG_SHIFT, f & Flags.LOGIN_NSG_MASK,
                Wire.u8(b, at + Bhs.Login.VERSION_MAX), Wire.u8(b, at + Bhs.Login.VERSION_ACTIVE),
                Wire.u48(b, at + Bhs.Login.ISID), Wire.u16(b, at + Bhs.Login.TSIH),
                b.getInt(at + INITIATOR_TASK_TAG), b.getInt(at + STAT_SN), b.getInt(at + EXP_CMD_SN),
                b.getInt(at + MAX_CMD_SN), Wire.u8(b, at + Bhs.Login.STATUS_CLASS),
                Wire.u8(b, at + Bhs.Login.STATUS_DETAIL), data);
    }
}
