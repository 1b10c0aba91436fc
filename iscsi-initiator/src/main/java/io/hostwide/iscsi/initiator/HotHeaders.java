package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Flags;
import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/**
 * The two BHSs the initiator sends per I/O, written straight into the send buffer without a PDU record: SCSI Command
 * with a CDB of at most 16 bytes (RFC 7143 §11.3; longer CDBs need an AHS and take the record path) and SCSI
 * Data-Out (§11.7). Field offsets are {@link Bhs}'s, the same the records use; the records' golden tests pin them.
 * Each BHS goes at absolute index {@code at}, behind the frames already waiting in a batched send buffer.
 */
final class HotHeaders {
    private HotHeaders() {}

    static void scsiCommand(ByteBuffer b, int at, boolean fin, boolean read, boolean write, int attr, long lun, int itt,
                            int expectedDataTransferLength, int cmdSn, int expStatSn, byte[] cdb, int cdbLength,
                            int dataSegmentLength) {
        clear(b, at);
        b.put(at + Bhs.OPCODE, (byte) Opcode.SCSI_COMMAND.code);
        b.put(at + Bhs.FLAGS, (byte) ((fin ? Flags.FINAL : 0) | (read ? Flags.SCSI_COMMAND_READ : 0)
                | (write ? Flags.SCSI_COMMAND_WRITE : 0) | (attr & Flags.SCSI_COMMAND_ATTR_MASK)));
        dataSegmentLength(b, at, dataSegmentLength);
        b.putLong(at + Bhs.LUN, lun);
        b.putInt(at + Bhs.INITIATOR_TASK_TAG, itt);
        b.putInt(at + Bhs.ScsiCommand.EXPECTED_DATA_TRANSFER_LENGTH, expectedDataTransferLength);
        b.putInt(at + Bhs.CMD_SN, cmdSn);
        b.putInt(at + Bhs.EXP_STAT_SN, expStatSn);
        b.put(at + Bhs.ScsiCommand.CDB, cdb, 0, cdbLength);   // the rest of the 16 bytes stays zero (§11.3.5)
    }

    static void dataOut(ByteBuffer b, int at, boolean fin, long lun, int itt, int ttt, int expStatSn, int dataSn,
                        int bufferOffset, int dataSegmentLength) {
        clear(b, at);
        b.put(at + Bhs.OPCODE, (byte) Opcode.SCSI_DATA_OUT.code);
        b.put(at + Bhs.FLAGS, (byte) (fin ? Bhs.FINAL_BIT : 0));
        dataSegmentLength(b, at, dataSegmentLength);
        b.putLong(at + Bhs.LUN, lun);
        b.putInt(at + Bhs.INITIATOR_TASK_TAG, itt);
        b.putInt(at + Bhs.TARGET_TRANSFER_TAG, ttt);
        b.putInt(at + Bhs.EXP_STAT_SN, expStatSn);
        b.putInt(at + Bhs.Data.DATA_SN, dataSn);
        b.putInt(at + Bhs.Data.BUFFER_OFFSET, bufferOffset);
    }

    private static void clear(ByteBuffer b, int at) {
        for (int i = 0; i < Bhs.LENGTH; i += 8) {
            b.putLong(at + i, 0L);
        }
    }

    private static void dataSegmentLength(ByteBuffer b, int at, int n) {
        b.put(at + Bhs.DATA_SEGMENT_LENGTH, (byte) (n >>> 16));
        b.put(at + Bhs.DATA_SEGMENT_LENGTH + 1, (byte) (n >>> 8));
        b.put(at + Bhs.DATA_SEGMENT_LENGTH + 2, (byte) n);
    }
}
