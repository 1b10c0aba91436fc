package io.hostwide.iscsi.pdu;

import static io.hostwide.iscsi.spec.Bhs.*;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.Flags;
import java.nio.ByteBuffer;

/**
 * A reusable flyweight over a well-formed SCSI Command (without AHS) or SCSI Data-Out in the receive buffer: the two
 * PDUs of every I/O read without creating records or buffer views (STYLE 7, Agrona-style descriptors). Valid until
 * the receive buffer is compacted; {@link PduDecoder#hot} fills it only after the checks {@link PduDecoder#decode}
 * would make (digests, reserved ITT), so every other case still takes the record path and its DecodeError values.
 * One per connection, reader thread only.
 */
public final class HotPdu {
    private ByteBuffer b;
    private int at;
    private int dataAt;
    private int dataLength;

    void wrap(ByteBuffer buffer, int bhsAt, int dataAt, int dataLength) {
        this.b = buffer;
        this.at = bhsAt;
        this.dataAt = dataAt;
        this.dataLength = dataLength;
    }

    public ByteBuffer buffer() {
        return b;
    }

    public int opcode() {
        return b.get(at) & OPCODE_MASK;
    }

    public boolean immediate() {
        return (b.get(at) & IMMEDIATE_BIT) != 0;
    }

    public boolean fin() {
        return (b.get(at + FLAGS) & FINAL_BIT) != 0;
    }

    public boolean read() {
        return (b.get(at + FLAGS) & Flags.SCSI_COMMAND_READ) != 0;
    }

    public boolean write() {
        return (b.get(at + FLAGS) & Flags.SCSI_COMMAND_WRITE) != 0;
    }

    public int attr() {
        return b.get(at + FLAGS) & Flags.SCSI_COMMAND_ATTR_MASK;
    }

    public long lun() {
        return b.getLong(at + LUN);
    }

    public int initiatorTaskTag() {
        return b.getInt(at + INITIATOR_TASK_TAG);
    }

    public int expectedDataTransferLength() {
        return b.getInt(at + Bhs.ScsiCommand.EXPECTED_DATA_TRANSFER_LENGTH);
    }

    public int cmdSn() {
        return b.getInt(at + CMD_SN);
    }

    /** Absolute index of the 16-byte CDB. */
    public int cdbAt() {
        return at + Bhs.ScsiCommand.CDB;
    }

    public int targetTransferTag() {
        return b.getInt(at + TARGET_TRANSFER_TAG);
    }

    public int dataSn() {
        return b.getInt(at + Bhs.Data.DATA_SN);
    }

    public int bufferOffset() {
        return b.getInt(at + Bhs.Data.BUFFER_OFFSET);
    }

    /** Absolute index of the data segment. */
    public int dataAt() {
        return dataAt;
    }

    public int dataLength() {
        return dataLength;
    }

    /** The same PDU as a detached record (copies), for the rare paths that keep it (MC/S reordering, traces). */
    public Pdu toRecord() {
        ByteBuffer data = ByteBuffer.allocate(dataLength);
        data.put(0, b, dataAt, dataLength);
        if (opcode() == io.hostwide.iscsi.spec.Opcode.SCSI_COMMAND.code) {
            ByteBuffer cdb = ByteBuffer.allocate(Bhs.ScsiCommand.CDB_LENGTH);
            cdb.put(0, b, cdbAt(), Bhs.ScsiCommand.CDB_LENGTH);
            return new ScsiCommand(immediate(), fin(), read(), write(), attr(), lun(), initiatorTaskTag(),
                    expectedDataTransferLength(), cmdSn(), b.getInt(at + EXP_STAT_SN), cdb, -1, data);
        }
        return new DataOut(fin(), lun(), initiatorTaskTag(), targetTransferTag(), b.getInt(at + EXP_STAT_SN),
                dataSn(), bufferOffset(), data);
    }

    /** A private copy of the 48-byte BHS, for a Reject data segment (RFC 7143 §11.17.3). */
    public ByteBuffer copyHeader() {
        return PduDecoder.copyHeader(b, at);
    }

    static boolean reservedTag(int itt) {
        return itt == Codes.RESERVED_TAG;
    }
}
