package io.hostwide.tcm.sbc;

import io.hostwide.scsi.spec.CdbGroup;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.TransferLength;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.RangeLock;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.DataPathErrors;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * WRITE SAME 10/16 (SBC-4 §5.49, §5.50): one block of Data-Out (none with NDOB) written to every block of the
 * range; transfer length 0 means "to the end of the medium" (WSNZ = 0). UNMAP = 1 on a thin device deallocates the
 * range whatever the Data-Out block holds, as LIO does and as libiscsi's WriteSame*.UnmapUntilEnd expects: the
 * initiator asked for an unmap, and with LBPRZ = 1 the blocks then read back as zeros (SBC-4 §4.7.3.4.2). Without
 * UNMAP, all-zero data is stored as zeros and other data is replicated. ANCHOR is not supported (ANC_SUP = 0).
 */
final class WriteSame {
    private WriteSame() {}

    static final int ANCHOR = 0x10;
    static final int UNMAP = 0x08;
    static final int NDOB = 0x01;

    static boolean ndob(byte[] cdb) { return CdbGroup.lengthOf(cdb[0]) == 16 && (cdb[1] & NDOB) != 0; }

    static final TransferLength DATA = (cdb, dev) -> ndob(cdb) ? 0 : dev.blockSize();

    static int execute(Command cmd) {
        byte[] cdb = cmd.cdb();
        Device dev = cmd.device();
        if (!BlockCdb.protectClear(cmd)) {
            return CommandDescriptor.DONE;
        }
        if ((cdb[1] & ANCHOR) != 0) {
            return cmd.failCdbField(1, 4);
        }
        boolean unmap = (cdb[1] & UNMAP) != 0;
        if (unmap && !dev.thinProvisioned()) {
            return cmd.failCdbField(1, 3);
        }
        long lba = BlockCdb.lba(cdb);
        long blocks = BlockCdb.blocks(cdb);
        if (!BlockCdb.inRange(cmd, lba, blocks)) {
            return CommandDescriptor.DONE;
        }
        if (blocks == 0) {
            blocks = dev.blockCount() - lba;
        }
        long max = dev.attributes().maxWriteSameLength();
        if (max > 0 && blocks > max) {
            return cmd.failCdbField(BlockCdb.transferLengthOffset(cdb), -1);
        }
        if (blocks == 0) {
            return CommandDescriptor.DONE;
        }
        boolean zeros = !unmap && (ndob(cdb) || allZero(cmd, dev.blockSize()));
        long mask = RangeLock.mask(lba, blocks);
        long[] stamps = RangeLock.stamps();
        dev.rangeLock().lockShared(mask, stamps);
        try {
            if (unmap) {
                Deallocate.range(dev.backstore(), dev.attributes(), lba, blocks);
            } else if (zeros) {
                dev.backstore().writeZeros(lba, blocks);
            } else {
                replicate(cmd, dev, lba, blocks);
            }
            if (!dev.modePages().writeCacheEnabled()) {
                dev.backstore().flush();
            }
        } catch (IOException e) {
            DataPathErrors.LOG.report(dev.name(), "WRITE SAME", lba, blocks, e);
            return cmd.failWithInformation(SenseReason.ofWriteFailure(e), lba);
        } finally {
            dev.rangeLock().unlockShared(mask, stamps);
        }
        return CommandDescriptor.DONE;
    }

    private static boolean allZero(Command cmd, int blockSize) {
        for (int i = 0; i < blockSize; i++) {
            if (cmd.outU8(i) != 0) {
                return false;
            }
        }
        return true;
    }

    private static void replicate(Command cmd, Device dev, long lba, long blocks) throws IOException {
        int bs = dev.blockSize();
        byte[] one = new byte[bs];
        cmd.copyDataOut(0, one, 0, bs);
        dev.backstore().writeSame(lba, blocks, ByteBuffer.wrap(one));
    }
}
