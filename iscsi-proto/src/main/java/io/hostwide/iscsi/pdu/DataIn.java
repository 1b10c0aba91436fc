package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Flags;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/** SCSI Data-In, RFC 7143 §11.7; with S=1 it carries the status too (phase collapse, RFC 7143 §11.7.3). */
public record DataIn(
        boolean fin, boolean acknowledge, boolean overflow, boolean underflow, boolean statusPresent, int status,
        long lun, int initiatorTaskTag, int targetTransferTag, int statSn, int expCmdSn, int maxCmdSn, int dataSn,
        int bufferOffset, int residualCount, ByteBuffer data) implements Pdu {

    public DataIn {
        data = Pdu.readOnly(data);
    }

    @Override
    public Opcode opcode() {
        return Opcode.SCSI_DATA_IN;
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        int flags = (fin ? FINAL_BIT : 0) | (acknowledge ? Flags.DATA_IN_ACKNOWLEDGE : 0)
                | (overflow ? Flags.DATA_IN_OVERFLOW : 0) | (underflow ? Flags.DATA_IN_UNDERFLOW : 0)
                | (statusPresent ? Flags.DATA_IN_STATUS : 0);
        ResponseHeaders.dataIn(out, at, flags, statusPresent ? status : 0, lun, initiatorTaskTag, targetTransferTag,
                statSn, expCmdSn, maxCmdSn, dataSn, bufferOffset, residualCount, data.remaining());
    }

    static DataIn read(ByteBuffer b, int at, ByteBuffer data) {
        int f = Wire.u8(b, at + FLAGS);
        return new DataIn((f & FINAL_BIT) != 0, (f & Flags.DATA_IN_ACKNOWLEDGE) != 0,
                (f & Flags.DATA_IN_OVERFLOW) != 0, (f & Flags.DATA_IN_UNDERFLOW) != 0,
                (f & Flags.DATA_IN_STATUS) != 0, Wire.u8(b, at + Bhs.Data.STATUS), b.getLong(at + LUN),
                b.getInt(at + INITIATOR_TASK_TAG), b.getInt(at + TARGET_TRANSFER_TAG), b.getInt(at + STAT_SN),
                b.getInt(at + EXP_CMD_SN), b.getInt(at + MAX_CMD_SN), b.getInt(at + Bhs.Data.DATA_SN),
                b.getInt(at + Bhs.Data.BUFFER_OFFSET), b.getInt(at + Bhs.Data.RESIDUAL_COUNT), data);
    }
}
