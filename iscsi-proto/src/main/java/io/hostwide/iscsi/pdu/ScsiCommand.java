package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.Flags;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/**
 * SCSI Command, RFC 7143 §11.3. The CDB is the 16 bytes of the BHS followed by the Extended CDB AHS when present
 * (§11.2.2.3); the expected bidirectional read data length comes from its AHS (§11.2.2.4), -1 when absent.
 *
 * @param expectedDataTransferLength unsigned 32-bit
 * @param cdb read-only, 16 bytes or more (longer CDBs keep their extended bytes; short CDBs are zero-padded to 16)
 */
public record ScsiCommand(
        boolean immediate, boolean fin, boolean read, boolean write, int attr, long lun, int initiatorTaskTag,
        int expectedDataTransferLength, int cmdSn, int expStatSn, ByteBuffer cdb,
        long expectedBidirectionalReadDataLength, ByteBuffer data) implements Pdu {

    public ScsiCommand {
        cdb = Pdu.readOnly(cdb);
        data = Pdu.readOnly(data);
        if (cdb.remaining() < ScsiCommand.CDB_BHS_BYTES) {
            ByteBuffer padded = ByteBuffer.allocate(ScsiCommand.CDB_BHS_BYTES);
            padded.put(cdb.duplicate()).clear();
            cdb = padded.asReadOnlyBuffer();
        }
    }

    static final int CDB_BHS_BYTES = Bhs.ScsiCommand.CDB_LENGTH;

    @Override
    public Opcode opcode() {
        return Opcode.SCSI_COMMAND;
    }

    /** TotalAHSLength in 4-byte words for the AHSs this command needs. */
    public int totalAhsWords() {
        int words = 0;
        int extra = cdb.remaining() - CDB_BHS_BYTES;
        if (extra > 0) {
            words += (4 + extra + 3) / 4; // AHSLength(2) AHSType(1) reserved(1) + the extended CDB bytes, padded
        }
        if (expectedBidirectionalReadDataLength >= 0) {
            words += 2;
        }
        return words;
    }

    @Override
    public void writeBhs(ByteBuffer out, int at) {
        int flags = (fin ? Flags.FINAL : 0) | (read ? Flags.SCSI_COMMAND_READ : 0)
                | (write ? Flags.SCSI_COMMAND_WRITE : 0) | (attr & Flags.SCSI_COMMAND_ATTR_MASK);
        Wire.header(out, at, Opcode.SCSI_COMMAND.code, immediate, flags, data.remaining());
        out.put(at + TOTAL_AHS_LENGTH, (byte) totalAhsWords());
        out.putLong(at + LUN, lun);
        out.putInt(at + INITIATOR_TASK_TAG, initiatorTaskTag);
        out.putInt(at + Bhs.ScsiCommand.EXPECTED_DATA_TRANSFER_LENGTH, expectedDataTransferLength);
        out.putInt(at + CMD_SN, cmdSn);
        out.putInt(at + EXP_STAT_SN, expStatSn);
        out.put(at + Bhs.ScsiCommand.CDB, cdb, cdb.position(), CDB_BHS_BYTES);
    }

    /** Writes the AHSs at {@code at}; returns the bytes written ({@link #totalAhsWords()} * 4). RFC 7143 §11.2.2. */
    public int writeAhs(ByteBuffer out, int at) {
        int p = at;
        int extra = cdb.remaining() - CDB_BHS_BYTES;
        if (extra > 0) {
            int len = (4 + extra + 3) & ~3;
            for (int i = 0; i < len; i++) {
                out.put(p + i, (byte) 0);
            }
            out.putShort(p, (short) (extra + 1)); // AHSLength counts the reserved byte, §11.2.2.3
            out.put(p + 2, (byte) Codes.AHS_EXTENDED_CDB);
            out.put(p + 4, cdb, cdb.position() + CDB_BHS_BYTES, extra);
            p += len;
        }
        if (expectedBidirectionalReadDataLength >= 0) {
            out.putShort(p, (short) 5); // §11.2.2.4: AHSLength 0x0005
            out.put(p + 2, (byte) Codes.AHS_BIDIRECTIONAL_READ_LENGTH);
            out.put(p + 3, (byte) 0);
            out.putInt(p + 4, (int) expectedBidirectionalReadDataLength);
            p += 8;
        }
        return p - at;
    }
}
