package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/** SCSI Data-Out, RFC 7143 §11.7: unsolicited (TTT 0xffffffff) or in answer to an R2T. */
public record DataOut(
        boolean fin, long lun, int initiatorTaskTag, int targetTransferTag, int expStatSn, int dataSn,
        int bufferOffset, ByteBuffer data) implements Pdu {

    public DataOut {
        data = Pdu.readOnly(data);
    }

    @Override
    public Opcode opcode() {
        return Opcode.SCSI_DATA_OUT;
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        Wire.header(out, at, Opcode.SCSI_DATA_OUT.code, false, fin ? FINAL_BIT : 0, data.remaining());
        out.putLong(at + LUN, lun);
        out.putInt(at + INITIATOR_TASK_TAG, initiatorTaskTag);
        out.putInt(at + TARGET_TRANSFER_TAG, targetTransferTag);
        out.putInt(at + EXP_STAT_SN, expStatSn);
        out.putInt(at + Bhs.Data.DATA_SN, dataSn);
        out.putInt(at + Bhs.Data.BUFFER_OFFSET, bufferOffset);
    }

    static DataOut read(ByteBuffer b, int at, ByteBuffer data) {
        return new DataOut((b.get(at + FLAGS) & FINAL_BIT) != 0, b.getLong(at + LUN),
                b.getInt(at + INITIATOR_TASK_TAG), b.getInt(at + TARGET_TRANSFER_TAG), b.getInt(at + EXP_STAT_SN),
                b.getInt(at + Bhs.Data.DATA_SN), b.getInt(at + Bhs.Data.BUFFER_OFFSET), data);
    }
}
