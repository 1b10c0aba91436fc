package io.hostwide.tcm.xcopy;

import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.RangeLock;
import io.hostwide.tcm.spi.DataPathErrors;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Moves blocks between two LUs' backstores in chunks, holding each destination chunk's range shared against
 * COMPARE AND WRITE / WRITE ATOMIC like a WRITE does. Overlapping ranges on one LU copy back to front when the
 * destination lies above the source, so every block is read before it is overwritten.
 */
final class BlockCopier {
    private BlockCopier() {}

    /** @return false on a backstore I/O error */
    static boolean copy(Command cmd, Device src, long srcLba, Device dst, long dstLba, int blocks) {
        if (blocks == 0) {
            return true;
        }
        int bs = dst.blockSize();
        int chunkBlocks = Math.max(1, Math.min(blocks, ExtendedCopy.CHUNK / bs));
        ByteBuffer buf = ByteBuffer.wrap(cmd.scratch(chunkBlocks * bs));
        boolean backwards = src == dst && dstLba > srcLba && dstLba < srcLba + blocks;
        boolean durable = !dst.modePages().writeCacheEnabled();
        long[] stamps = RangeLock.stamps();
        int done = 0;
        while (done < blocks) {
            int n = Math.min(chunkBlocks, blocks - done);
            long off = backwards ? blocks - done - n : done;
            buf.clear().limit(n * bs);
            long mask = RangeLock.mask(dstLba + off, n);
            try {
                src.backstore().read(srcLba + off, buf);
                buf.limit(n * bs).position(0); // read may or may not advance the position
                dst.rangeLock().lockShared(mask, stamps);
                try {
                    dst.backstore().write(dstLba + off, buf, durable);
                } finally {
                    dst.rangeLock().unlockShared(mask, stamps);
                }
            } catch (IOException e) {
                DataPathErrors.LOG.report(src.name() + " -> " + dst.name(), "EXTENDED COPY of LBA " + (srcLba + off)
                        + " to LBA", dstLba + off, n, e);
                return false;
            }
            done += n;
        }
        return true;
    }
}
