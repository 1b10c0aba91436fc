package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/** SNACK Request, RFC 7143 §11.16; types in {@link io.hostwide.iscsi.spec.Codes}. */
public record SnackRequest(
        int type, long lun, int initiatorTaskTag, int targetTransferTag, int expStatSn, int begRun, int runLength)
        implements Pdu {

    @Override
    public Opcode opcode() {
        return Opcode.SNACK_REQUEST;
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        Wire.header(out, at, Opcode.SNACK_REQUEST.code, false, FINAL_BIT | (type & 0x0f), 0);
        out.putLong(at + LUN, lun);
        out.putInt(at + INITIATOR_TASK_TAG, initiatorTaskTag);
        out.putInt(at + TARGET_TRANSFER_TAG, targetTransferTag);
        out.putInt(at + EXP_STAT_SN, expStatSn);
        out.putInt(at + Bhs.Snack.BEG_RUN, begRun);
        out.putInt(at + Bhs.Snack.RUN_LENGTH, runLength);
    }

    static SnackRequest read(ByteBuffer b, int at) {
        return new SnackRequest(b.get(at + Bhs.Snack.TYPE) & 0x0f, b.getLong(at + LUN),
                b.getInt(at + INITIATOR_TASK_TAG), b.getInt(at + TARGET_TRANSFER_TAG), b.getInt(at + EXP_STAT_SN),
                b.getInt(at + Bhs.Snack.BEG_RUN), b.getInt(at + Bhs.Snack.RUN_LENGTH));
    }
}
