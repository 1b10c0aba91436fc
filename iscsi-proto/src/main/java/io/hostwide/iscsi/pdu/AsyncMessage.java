package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/** Asynchronous Message, RFC 7143 §11.9; the ITT is always 0xffffffff. Event codes in {@link io.hostwide.iscsi.spec.AsyncEvent}. */
public record AsyncMessage(
        long lun, int statSn, int expCmdSn, int maxCmdSn, int asyncEvent, int asyncVCode, int parameter1,
        int parameter2, int parameter3, ByteBuffer data) implements Pdu {

    public AsyncMessage {
        data = Pdu.readOnly(data);
    }

    @Override
    public Opcode opcode() {
        return Opcode.ASYNC_MESSAGE;
    }

    @Override
    public int initiatorTaskTag() {
        return Codes.RESERVED_TAG;
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        Wire.header(out, at, Opcode.ASYNC_MESSAGE.code, false, FINAL_BIT, data.remaining());
        out.putLong(at + LUN, lun);
        out.putInt(at + INITIATOR_TASK_TAG, Codes.RESERVED_TAG);
        out.putInt(at + STAT_SN, statSn);
        out.putInt(at + EXP_CMD_SN, expCmdSn);
        out.putInt(at + MAX_CMD_SN, maxCmdSn);
        out.put(at + Bhs.AsyncMessage.ASYNC_EVENT, (byte) asyncEvent);
        out.put(at + Bhs.AsyncMessage.ASYNC_VCODE, (byte) asyncVCode);
        out.putShort(at + Bhs.AsyncMessage.PARAMETER1, (short) parameter1);
        out.putShort(at + Bhs.AsyncMessage.PARAMETER2, (short) parameter2);
        out.putShort(at + Bhs.AsyncMessage.PARAMETER3, (short) parameter3);
    }

    static AsyncMessage read(ByteBuffer b, int at, ByteBuffer data) {
        return new AsyncMessage(b.getLong(at + LUN), b.getInt(at + STAT_SN), b.getInt(at + EXP_CMD_SN),
                b.getInt(at + MAX_CMD_SN), Wire.u8(b, at + Bhs.AsyncMessage.ASYNC_EVENT),
                Wire.u8(b, at + Bhs.AsyncMessage.ASYNC_VCODE), Wire.u16(b, at + Bhs.AsyncMessage.PARAMETER1),
                Wire.u16(b, at + Bhs.AsyncMessage.PARAMETER2), Wire.u16(b, at + Bhs.AsyncMessage.PARAMETER3), data);
    }
}
