package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Flags;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/**
 * The two BHSs the initiator sends per I/O, written straight into the send buffer without a PDU record: SCSI Command
 * with a CDB of at most 16 bytes (RFC 7143 §11.3; longer CDBs need an AHS and take the record path) and SCSI
 * Data-Out (§11.7). Field offsets are {@link Bhs}'s, the same the records use; the records' golden tests pin them.
 */
final class HotHeaders {
    private HotHeaders() {}

    static void scsiCommand(ByteBuffer b, boolean fin, boolean read, boolean write, int attr, long lun, int itt,
                            int expectedDataTransferLength, int cmdSn, int expStatSn, byte[] cdb, int cdbLength,
                            int dataSegmentLength) {
        clear(b);
        b.put(Bhs.OPCODE, (byte) Opcode.SCSI_COMMAND.code);
        b.put(Bhs.FLAGS, (byte) ((fin ? Flags.FINAL : 0) | (read ? Flags.SCSI_COMMAND_READ : 0)
                | (write ? Flags.SCSI_COMMAND_WRITE : 0) | (attr & Flags.SCSI_COMMAND_ATTR_MASK)));
        dataSegmentLength(b, dataSegmentLength);
        b.putLong(Bhs.LUN, lun);
        b.putInt(Bhs.INITIATOR_TASK_TAG, itt);
        b.putInt(Bhs.ScsiCommand.EXPECTED_DATA_TRANSFER_LENGTH, expectedDataTransferLength);
        b.putInt(Bhs.CMD_SN, cmdSn);
        b.putInt(Bhs.EXP_STAT_SN, expStatSn);
        b.put(Bhs.ScsiCommand.CDB, cdb, 0, cdbLength);   // the rest of the 16 bytes stays zero (§11.3.5)
    }

    static void dataOut(ByteBuffer b, boolean fin, long lun, int itt, int ttt, int expStatSn, int dataSn,
                        int bufferOffset, int dataSegmentLength) {
        clear(b);
        b.put(Bhs.OPCODE, (byte) Opcode.SCSI_DATA_OUT.code);
        b.put(Bhs.FLAGS, (byte) (fin ? Bhs.FINAL_BIT : 0));
        dataSegmentLength(b, dataSegmentLength);
        b.putLong(Bhs.LUN, lun);
        b.putInt(Bhs.INITIATOR_TASK_TAG, itt);
        b.putInt(Bhs.TARGET_TRANSFER_TAG, ttt);
        b.putInt(Bhs.EXP_STAT_SN, expStatSn);
        b.putInt(Bhs.Data.DATA_SN, dataSn);
        b.putInt(Bhs.Data.BUFFER_OFFSET, bufferOffset);
    }

    private static void clear(ByteBuffer b) {
        for (int i = 0; i < Bhs.LENGTH; i += 8) {
            b.putLong(i, 0L);
        }
    }

    private static void dataSegmentLength(ByteBuffer b, int n) {
        b.put(Bhs.DATA_SEGMENT_LENGTH, (byte) (n >>> 16));
        b.put(Bhs.DATA_SEGMENT_LENGTH + 1, (byte) (n >>> 8));
        b.put(Bhs.DATA_SEGMENT_LENGTH + 2, (byte) n);
    }
}
