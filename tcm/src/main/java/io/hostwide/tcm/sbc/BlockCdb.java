package io.hostwide.tcm.sbc;

import io.hostwide.scsi.spec.Cdb10;
import io.hostwide.scsi.spec.Cdb12;
import io.hostwide.scsi.spec.Cdb16;
import io.hostwide.scsi.spec.Cdb6;
import io.hostwide.scsi.spec.CdbGroup;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.TransferLength;
import io.hostwide.tcm.spi.SenseReason;

/**
 * LBA and transfer length of the block commands that share the READ(6/10/12/16) layouts, picked by CDB length,
 * and the range checks every block command makes (SBC-4 §4.5: LBA OUT OF RANGE; a zero-length transfer at the
 * capacity is legal, one past it is not).
 */
final class BlockCdb {
    private BlockCdb() {}

    static long lba(byte[] cdb) {
        return switch (CdbGroup.lengthOf(cdb[0])) {
            case 6 -> Cdb6.lba(cdb);
            case 10 -> Cdb10.lba(cdb);
            case 12 -> Cdb12.lba(cdb);
            default -> Cdb16.lba(cdb);
        };
    }

    /** Transfer length in blocks; READ(6)/WRITE(6) map 0 to 256 (SBC-4 §5.15). */
    static long blocks(byte[] cdb) {
        return switch (CdbGroup.lengthOf(cdb[0])) {
            case 6 -> {
                int n = Cdb6.transferLength(cdb);
                yield n == 0 ? 256 : n;
            }
            case 10 -> Cdb10.transferLength(cdb);
            case 12 -> Cdb12.transferLength(cdb);
            default -> Cdb16.transferLength(cdb);
        };
    }

    /** Byte offset of the TRANSFER LENGTH field, for field pointers. */
    static int transferLengthOffset(byte[] cdb) {
        return switch (CdbGroup.lengthOf(cdb[0])) {
            case 6 -> Cdb6.TRANSFER_LENGTH;
            case 10 -> Cdb10.TRANSFER_LENGTH;
            case 12 -> Cdb12.TRANSFER_LENGTH;
            default -> Cdb16.TRANSFER_LENGTH;
        };
    }

    /** The data of a READ/WRITE-layout command: transfer length × block size. */
    static final TransferLength DATA = (cdb, dev) -> blocks(cdb) * dev.blockSize();

    /**
     * Fails the command when [lba, lba + blocks) is not inside the medium (LBA OUT OF RANGE), comparing unsigned.
     *
     * @return true when the range is valid
     */
    static boolean inRange(Command cmd, long lba, long blocks) {
        long cap = cmd.device().blockCount();
        if (Long.compareUnsigned(lba, cap) > 0 || Long.compareUnsigned(blocks, cap - lba) > 0) {
            cmd.fail(SenseReason.LBA_OUT_OF_RANGE);
            return false;
        }
        return true;
    }

    /** Non-zero RDPROTECT/WRPROTECT/VRPROTECT/ORPROTECT without protection information → INVALID FIELD IN CDB. */
    static boolean protectClear(Command cmd) {
        if ((cmd.cdb()[1] & Cdb10.PROTECT_MASK) != 0 && CdbGroup.lengthOf(cmd.cdb()[0]) != 6) {
            cmd.failCdbField(1, 7);
            return false;
        }
        return true;
    }
}
