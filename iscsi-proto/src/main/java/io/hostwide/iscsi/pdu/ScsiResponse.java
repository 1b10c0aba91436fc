package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Flags;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/**
 * SCSI Response, RFC 7143 §11.4. The data segment holds SenseLength (2 bytes), the sense data and any response data
 * (§11.4.7). The hot path writes this header through {@link ResponseHeaders#scsiResponse} without a record.
 */
public record ScsiResponse(
        boolean bidiOverflow, boolean bidiUnderflow, boolean overflow, boolean underflow, int response, int status,
        int initiatorTaskTag, int snackTag, int statSn, int expCmdSn, int maxCmdSn, int expDataSn,
        int bidirectionalReadResidualCount, int residualCount, ByteBuffer data) implements Pdu {

    public ScsiResponse {
        data = Pdu.readOnly(data);
    }

    @Override
    public Opcode opcode() {
        return Opcode.SCSI_RESPONSE;
    }

    int flags() {
        return FINAL_BIT | (bidiOverflow ? Flags.SCSI_RESPONSE_BIDI_OVERFLOW : 0)
                | (bidiUnderflow ? Flags.SCSI_RESPONSE_BIDI_UNDERFLOW : 0)
                | (overflow ? Flags.SCSI_RESPONSE_OVERFLOW : 0) | (underflow ? Flags.SCSI_RESPONSE_UNDERFLOW : 0);
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        ResponseHeaders.scsiResponse(out, at, flags(), response, status, initiatorTaskTag, statSn, expCmdSn, maxCmdSn,
                expDataSn, bidirectionalReadResidualCount, residualCount, data.remaining());
        out.putInt(at + Bhs.ScsiResponse.SNACK_TAG, snackTag);
    }

    static ScsiResponse read(ByteBuffer b, int at, ByteBuffer data) {
        int f = Wire.u8(b, at + FLAGS);
        return new ScsiResponse((f & Flags.SCSI_RESPONSE_BIDI_OVERFLOW) != 0,
                (f & Flags.SCSI_RESPONSE_BIDI_UNDERFLOW) != 0, (f & Flags.SCSI_RESPONSE_OVERFLOW) != 0,
                (f & Flags.SCSI_RESPONSE_UNDERFLOW) != 0, Wire.u8(b, at + Bhs.ScsiResponse.RESPONSE),
                Wire.u8(b, at + Bhs.ScsiResponse.STATUS), b.getInt(at + INITIATOR_TASK_TAG),
                b.getInt(at + Bhs.ScsiResponse.SNACK_TAG), b.getInt(at + STAT_SN), b.getInt(at + EXP_CMD_SN),
                b.getInt(at + MAX_CMD_SN), b.getInt(at + Bhs.ScsiResponse.EXP_DATA_SN),
                b.getInt(at + Bhs.ScsiResponse.BIDIRECTIONAL_READ_RESIDUAL_COUNT),
                b.getInt(at + Bhs.ScsiResponse.RESIDUAL_COUNT), data);
    }
}
