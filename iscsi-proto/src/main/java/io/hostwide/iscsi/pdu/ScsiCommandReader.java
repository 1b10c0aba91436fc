package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.Flags;
import io.hostwide.iscsi.spec.RejectReason;
import java.nio.ByteBuffer;

/** Decodes a SCSI Command with its AHSs (RFC 7143 §11.2.2, §11.3). */
final class ScsiCommandReader {
    private ScsiCommandReader() {}

    static DecodeResult read(ByteBuffer b, ByteBuffer ro, int at, int ahsBytes, ByteBuffer data, PduDecoder d) {
        int itt = b.getInt(at + INITIATOR_TASK_TAG);
        if (itt == Codes.RESERVED_TAG) { // RFC 7143 §11.2.1.8: 0xffffffff is reserved
            return DecodeError.reject(RejectReason.INVALID_PDU_FIELD, PduDecoder.copyHeader(b, at), itt,
                    "SCSI Command with the reserved ITT");
        }
        ByteBuffer cdb = ro.slice(at + Bhs.ScsiCommand.CDB, Bhs.ScsiCommand.CDB_LENGTH);
        long bidi = -1;
        boolean extended = false;
        int p = at + LENGTH;
        int end = p + ahsBytes;
        while (p < end) {
            if (end - p < 4) {
                return bad(b, at, itt, RejectReason.PROTOCOL_ERROR, "truncated AHS");
            }
            int len = Wire.u16(b, p);
            int type = Wire.u8(b, p + 2);
            int total = (3 + len + 3) & ~3;
            if (len == 0 || p + total > end) {
                return bad(b, at, itt, RejectReason.PROTOCOL_ERROR, "AHS length beyond TotalAHSLength");
            }
            if (type == Codes.AHS_EXTENDED_CDB && !extended && len >= 2) {
                byte[] full = new byte[Bhs.ScsiCommand.CDB_LENGTH + len - 1];
                b.get(at + Bhs.ScsiCommand.CDB, full, 0, Bhs.ScsiCommand.CDB_LENGTH);
                b.get(p + 4, full, Bhs.ScsiCommand.CDB_LENGTH, len - 1);
                cdb = ByteBuffer.wrap(full).asReadOnlyBuffer();
                extended = true;
            } else if (type == Codes.AHS_BIDIRECTIONAL_READ_LENGTH && bidi < 0 && len == 5) {
                bidi = b.getInt(p + 4) & 0xffff_ffffL;
            } else {
                return bad(b, at, itt, RejectReason.INVALID_PDU_FIELD, "unknown, repeated or malformed AHS");
            }
            p += total;
        }
        int f = Wire.u8(b, at + FLAGS);
        return new ScsiCommand((b.get(at) & IMMEDIATE_BIT) != 0, (f & FINAL_BIT) != 0,
                (f & Flags.SCSI_COMMAND_READ) != 0, (f & Flags.SCSI_COMMAND_WRITE) != 0,
                f & Flags.SCSI_COMMAND_ATTR_MASK, b.getLong(at + LUN), itt,
                b.getInt(at + Bhs.ScsiCommand.EXPECTED_DATA_TRANSFER_LENGTH), b.getInt(at + CMD_SN),
                b.getInt(at + EXP_STAT_SN), cdb, bidi, data);
    }

    private static DecodeError bad(ByteBuffer b, int at, int itt, RejectReason reason, String detail) {
        return DecodeError.reject(reason, PduDecoder.copyHeader(b, at), itt, detail);
    }
}
