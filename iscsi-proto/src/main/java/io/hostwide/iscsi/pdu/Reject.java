package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/**
 * Reject, RFC 7143 §11.17: the data segment is the complete header of the rejected PDU (§11.17.3); the ITT is always
 * 0xffffffff. {@code reason} codes in {@link io.hostwide.iscsi.spec.RejectReason}.
 */
public record Reject(int reason, int statSn, int expCmdSn, int maxCmdSn, int dataSnOrR2tSn, ByteBuffer data)
        implements Pdu {

    public Reject {
        data = Pdu.readOnly(data);
    }

    @Override
    public Opcode opcode() {
        return Opcode.REJECT;
    }

    @Override
    public int initiatorTaskTag() {
        return Codes.RESERVED_TAG;
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        Wire.header(out, at, Opcode.REJECT.code, false, FINAL_BIT, data.remaining());
        out.put(at + Bhs.Reject.REASON, (byte) reason);
        out.putInt(at + INITIATOR_TASK_TAG, Codes.RESERVED_TAG);
        out.putInt(at + STAT_SN, statSn);
        out.putInt(at + EXP_CMD_SN, expCmdSn);
        out.putInt(at + MAX_CMD_SN, maxCmdSn);
        out.putInt(at + Bhs.Reject.DATA_SN_OR_R2T_SN, dataSnOrR2tSn);
    }

    static Reject read(ByteBuffer b, int at, ByteBuffer data) {
        return new Reject(Wire.u8(b, at + Bhs.Reject.REASON), b.getInt(at + STAT_SN), b.getInt(at + EXP_CMD_SN),
                b.getInt(at + MAX_CMD_SN), b.getInt(at + Bhs.Reject.DATA_SN_OR_R2T_SN), data);
    }
}
