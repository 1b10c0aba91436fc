package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/**
 * Allocation-free writers for the hot-path target headers: SCSI Data-In, SCSI Response and R2T. The full-feature
 * connection writes these straight into its pooled send buffer; the records of the same PDUs delegate here, so both
 * paths produce the same bytes.
 */
public final class ResponseHeaders {
    private ResponseHeaders() {}

    /** SCSI Data-In BHS, RFC 7143 §11.7. {@code flags} holds F A O U S (see {@link io.hostwide.iscsi.spec.Flags}). */
    public static void dataIn(ByteBuffer out, int at, int flags, int status, long lun, int itt, int ttt, int statSn,
            int expCmdSn, int maxCmdSn, int dataSn, int bufferOffset, int residualCount, int dataSegmentLength) {
        Wire.header(out, at, Opcode.SCSI_DATA_IN.code, false, flags, dataSegmentLength);
        out.put(at + Bhs.Data.STATUS, (byte) status);
        out.putLong(at + LUN, lun);
        out.putInt(at + INITIATOR_TASK_TAG, itt);
        out.putInt(at + TARGET_TRANSFER_TAG, ttt);
        out.putInt(at + STAT_SN, statSn);
        out.putInt(at + EXP_CMD_SN, expCmdSn);
        out.putInt(at + MAX_CMD_SN, maxCmdSn);
        out.putInt(at + Bhs.Data.DATA_SN, dataSn);
        out.putInt(at + Bhs.Data.BUFFER_OFFSET, bufferOffset);
        out.putInt(at + Bhs.Data.RESIDUAL_COUNT, residualCount);
    }

    /** SCSI Response BHS, RFC 7143 §11.4; the SNACK Tag is 0 (we run at ErrorRecoveryLevel 0). */
    public static void scsiResponse(ByteBuffer out, int at, int flags, int response, int status, int itt, int statSn,
            int expCmdSn, int maxCmdSn, int expDataSn, int bidiResidualCount, int residualCount,
            int dataSegmentLength) {
        Wire.header(out, at, Opcode.SCSI_RESPONSE.code, false, flags | FINAL_BIT, dataSegmentLength);
        out.put(at + Bhs.ScsiResponse.RESPONSE, (byte) response);
        out.put(at + Bhs.ScsiResponse.STATUS, (byte) status);
        out.putInt(at + INITIATOR_TASK_TAG, itt);
        out.putInt(at + STAT_SN, statSn);
        out.putInt(at + EXP_CMD_SN, expCmdSn);
        out.putInt(at + MAX_CMD_SN, maxCmdSn);
        out.putInt(at + Bhs.ScsiResponse.EXP_DATA_SN, expDataSn);
        out.putInt(at + Bhs.ScsiResponse.BIDIRECTIONAL_READ_RESIDUAL_COUNT, bidiResidualCount);
        out.putInt(at + Bhs.ScsiResponse.RESIDUAL_COUNT, residualCount);
    }

    /** R2T BHS, RFC 7143 §11.8. */
    public static void r2t(ByteBuffer out, int at, long lun, int itt, int ttt, int statSn, int expCmdSn,
            int maxCmdSn, int r2tSn, int bufferOffset, int desiredDataTransferLength) {
        Wire.header(out, at, Opcode.R2T.code, false, FINAL_BIT, 0);
        out.putLong(at + LUN, lun);
        out.putInt(at + INITIATOR_TASK_TAG, itt);
        out.putInt(at + TARGET_TRANSFER_TAG, ttt);
        out.putInt(at + STAT_SN, statSn);
        out.putInt(at + EXP_CMD_SN, expCmdSn);
        out.putInt(at + MAX_CMD_SN, maxCmdSn);
        out.putInt(at + Bhs.R2t.R2T_SN, r2tSn);
        out.putInt(at + Bhs.R2t.BUFFER_OFFSET, bufferOffset);
        out.putInt(at + Bhs.R2t.DESIRED_DATA_TRANSFER_LENGTH, desiredDataTransferLength);
    }
}
