package io.hostwide.tcm.sbc;

import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.TransferLength;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.DataPathErrors;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * VERIFY 10/12/16 (SBC-4 §5.32-§5.34) and WRITE AND VERIFY 10/12/16 (§5.45-§5.47). BYTCHK: 00b check the medium
 * only, 01b compare with the Data-Out blocks, 11b compare every block with one Data-Out block, 10b reserved.
 * A mismatch gives MISCOMPARE / MISCOMPARE DURING VERIFY OPERATION with the offset of the first differing byte
 * from the start of the Data-Out buffer in INFORMATION.
 */
final class Verify {
    private Verify() {}

    static int bytchk(byte[] cdb) { return (cdb[1] >>> 1) & 0x03; }

    /** VERIFY's Data-Out: none for BYTCHK 00b, the range for 01b, one block for 11b. */
    static final TransferLength VERIFY_DATA = (cdb, dev) -> switch (bytchk(cdb)) {
        case 1 -> BlockCdb.blocks(cdb) * dev.blockSize();
        case 3 -> BlockCdb.blocks(cdb) == 0 ? 0 : dev.blockSize();
        default -> 0;
    };

    static int verify(Command cmd) {
        byte[] cdb = cmd.cdb();
        if (!BlockCdb.protectClear(cmd)) {
            return CommandDescriptor.DONE;
        }
        int bytchk = bytchk(cdb);
        if (bytchk == 2) {
            return cmd.failCdbField(1, 2);
        }
        long lba = BlockCdb.lba(cdb);
        long blocks = BlockCdb.blocks(cdb);
        Device dev = cmd.device();
        if (!BlockCdb.inRange(cmd, lba, blocks) || !ReadWrite.withinMaxTransfer(cmd, dev, blocks) || blocks == 0) {
            return CommandDescriptor.DONE;
        }
        if (bytchk == 0) {
            return CommandDescriptor.DONE; // the medium is memory or a file: nothing to re-read for errors
        }
        return compare(cmd, dev, lba, blocks, bytchk == 3);
    }

    /** Reads the range and compares it with the Data-Out; the range must already be checked. */
    static int compare(Command cmd, Device dev, long lba, long blocks, boolean sameBlock) {
        int bs = dev.blockSize();
        int chunkBlocks = (int) Math.max(1, Math.min(blocks, (256 * 1024) / bs));
        ByteBuffer buf = ByteBuffer.allocate(chunkBlocks * bs);
        long done = 0;
        try {
            while (done < blocks) {
                int n = (int) Math.min(chunkBlocks, blocks - done);
                buf.clear().limit(n * bs);
                ReadWrite.readAtomically(dev, lba + done, n, buf);
                for (int i = 0; i < n * bs; i++) {
                    long offset = sameBlock ? (done * bs + i) % bs : done * bs + i;
                    if (buf.get(i) != (byte) cmd.outU8((int) offset)) {
                        return cmd.failWithInformation(SenseReason.MISCOMPARE_DURING_VERIFY, done * bs + i);
                    }
                }
                done += n;
            }
        } catch (IOException e) {
            DataPathErrors.LOG.report(dev.name(), "VERIFY read", lba + done, -1, e);
            return cmd.failWithInformation(SenseReason.ofReadFailure(e), lba + done);
        }
        return CommandDescriptor.DONE;
    }

    static int writeAndVerify(Command cmd) {
        byte[] cdb = cmd.cdb();
        if (!BlockCdb.protectClear(cmd)) {
            return CommandDescriptor.DONE;
        }
        int bytchk = bytchk(cdb);
        if (bytchk > 1) {
            return cmd.failCdbField(1, 2);
        }
        long lba = BlockCdb.lba(cdb);
        long blocks = BlockCdb.blocks(cdb);
        Device dev = cmd.device();
        if (!BlockCdb.inRange(cmd, lba, blocks) || !ReadWrite.withinMaxTransfer(cmd, dev, blocks)) {
            return CommandDescriptor.DONE;
        }
        blocks = ReadWrite.transferredBlocks(cmd, dev, blocks);
        if (blocks == 0) {
            return CommandDescriptor.DONE;
        }
        // SBC-4 §5.45: the data must be on the medium before it is verified: write it durably.
        ReadWrite.writeBlocks(cmd, dev, lba, (int) (blocks * dev.blockSize()), 0, true);
        if (cmd.failed() || bytchk == 0) {
            return CommandDescriptor.DONE;
        }
        return compare(cmd, dev, lba, blocks, false);
    }
}
