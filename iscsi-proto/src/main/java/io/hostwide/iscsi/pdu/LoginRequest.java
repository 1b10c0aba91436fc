package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Flags;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/** Login Request, RFC 7143 §11.12. Always sent with the I bit set (byte 0 is 0x43). */
public record LoginRequest(
        boolean transit, boolean cont, int csg, int nsg, int versionMax, int versionMin, long isid, int tsih,
        int initiatorTaskTag, int cid, int cmdSn, int expStatSn, ByteBuffer data) implements Pdu {

    public LoginRequest {
        data = Pdu.readOnly(data);
    }

    @Override
    public Opcode opcode() {
        return Opcode.LOGIN_REQUEST;
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        int flags = (transit ? Flags.LOGIN_TRANSIT : 0) | (cont ? Flags.LOGIN_CONTINUE : 0)
                | ((csg << Flags.LOGIN_CSG_SHIFT) & Flags.LOGIN_CSG_MASK) | (nsg & Flags.LOGIN_NSG_MASK);
        Wire.header(out, at, Opcode.LOGIN_REQUEST.code, true, flags, data.remaining());
        out.put(at + Bhs.Login.VERSION_MAX, (byte) versionMax);
        out.put(at + Bhs.Login.VERSION_MIN, (byte) versionMin);
        Wire.put48(out, at + Bhs.Login.ISID, isid);
        out.putShort(at + Bhs.Login.TSIH, (short) tsih);
        out.putInt(at + INITIATOR_TASK_TAG, initiatorTaskTag);
        out.putShort(at + Bhs.Login.CID, (short) cid);
        out.putInt(at + CMD_SN, cmdSn);
        out.putInt(at + EXP_STAT_SN, expStatSn);
    }

    static LoginRequest read(ByteBuffer b, int at, ByteBuffer data) {
        int f = Wire.u8(b, at + FLAGS);
        return new LoginRequest((f & Flags.LOGIN_TRANSIT) != 0, (f & Flags.LOGIN_CONTINUE) != 0,
                (f & Flags.LOGIN_CSG_MASK) >>> Flags.LOGIN_CSG_SHIFT, f & Flags.LOGIN_NSG_MASK,
                Wire.u8(b, at + Bhs.Login.VERSION_MAX), Wire.u8(b, at + Bhs.Login.VERSION_MIN),
                Wire.u48(b, at + Bhs.Login.ISID), Wire.u16(b, at + Bhs.Login.TSIH),
                b.getInt(at + INITIATOR_TASK_TAG), Wire.u16(b, at + Bhs.Login.CID), b.getInt(at + CMD_SN),
                b.getInt(at + EXP_STAT_SN), data);
    }
}
