package io.hostwide.tcm.sbc;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.Cdb16;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.TransferLength;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.lu.RangeLock;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.DataPathErrors;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The writes that must be atomic with respect to other writes of the same blocks: COMPARE AND WRITE (SBC-4 §5.3),
 * ORWRITE(16) (§5.13) and WRITE ATOMIC(16) (§5.48). Each holds its range exclusively in the device's
 * {@link RangeLock} (plain writes hold theirs shared), so no write of an overlapping block interleaves.
 */
final class AtomicWrites {
    private AtomicWrites() {}

    static final int CAW_BLOCKS = 13;
    static final int ATOMIC_BOUNDARY = 10;
    static final int ATOMIC_TRANSFER_LENGTH = 12;

    /** COMPARE AND WRITE's Data-Out: the verify blocks then the write blocks. */
    static final TransferLength CAW_DATA = (cdb, dev) -> 2L * (cdb[CAW_BLOCKS] & 0xFF) * dev.blockSize();

    static final TransferLength ATOMIC_DATA = (cdb, dev) -> (long) BigEndian.u16(cdb, ATOMIC_TRANSFER_LENGTH) * dev.blockSize();

    static int compareAndWrite(Command cmd) {
        byte[] cdb = cmd.cdb();
        Device dev = cmd.device();
        if (!dev.attributes().emulateCaw()) {
            return cmd.fail(SenseReason.INVALID_COMMAND_OPERATION_CODE);
        }
        if (!BlockCdb.protectClear(cmd)) {
            return CommandDescriptor.DONE;
        }
        long lba = Cdb16.lba(cdb);
        int blocks = cdb[CAW_BLOCKS] & 0xFF;
        if (blocks > dev.attributes().maxCompareAndWriteLength()) {
            return cmd.failCdbField(CAW_BLOCKS, -1);
        }
        if (!BlockCdb.inRange(cmd, lba, blocks) || blocks == 0) {
            return CommandDescriptor.DONE;
        }
        int bytes = blocks * dev.blockSize();
        boolean fua = (cdb[1] & 0x08) != 0;
        long mask = RangeLock.mask(lba, blocks);
        long[] stamps = RangeLock.stamps();
        dev.rangeLock().lockExclusive(mask, stamps);
        try {
            boolean durable = (fua && dev.attributes().emulateFuaWrite()) || !dev.modePages().writeCacheEnabled();
            if (dev.backstore().nativeCompareAndWrite(bytes)) {
                // the storage compares and writes atomically for all its clients (other gateways included)
                long at = dev.backstore().compareAndWrite(lba, cmd.dataOutWindow(0, bytes).slice(),
                        cmd.dataOutWindow(bytes, bytes).slice(), durable);
                if (at == -1) {
                    return CommandDescriptor.DONE;
                }
                if (at < 0 || at >= bytes) { // never GOOD for a compare the storage says failed somewhere
                    throw new IllegalStateException(dev.backstore().describe() + ": compare and write answered "
                            + at + " for " + bytes + " bytes");
                }
                return cmd.failWithInformation(SenseReason.MISCOMPARE_DURING_VERIFY, at);
            }
            ByteBuffer current = ByteBuffer.allocate(bytes);
            dev.backstore().read(lba, current);
            for (int i = 0; i < bytes; i++) {
                if (current.get(i) != (byte) cmd.outU8(i)) {
                    return cmd.failWithInformation(SenseReason.MISCOMPARE_DURING_VERIFY, i);
                }
            }
            dev.backstore().write(lba, cmd.dataOutWindow(bytes, bytes), durable);
        } catch (IOException e) {
            DataPathErrors.LOG.report(dev.name(), "COMPARE AND WRITE", lba, blocks, e);
            return cmd.failWithInformation(SenseReason.ofWriteFailure(e), lba);
        } finally {
            cmd.restoreDataOut();
            dev.rangeLock().unlockExclusive(mask, stamps);
        }
        return CommandDescriptor.DONE;
    }

    /** ORWRITE(16): each block becomes (old OR new), read and written back under the exclusive range. */
    static int orWrite(Command cmd) {
        byte[] cdb = cmd.cdb();
        Device dev = cmd.device();
        if (!BlockCdb.protectClear(cmd)) {
            return CommandDescriptor.DONE;
        }
        long lba = Cdb16.lba(cdb);
        long blocks = Cdb16.transferLength(cdb);
        if (!BlockCdb.inRange(cmd, lba, blocks) || !ReadWrite.withinMaxTransfer(cmd, dev, blocks) || blocks == 0) {
            return CommandDescriptor.DONE;
        }
        int bytes = (int) (blocks * dev.blockSize());
        boolean fua = (cdb[1] & 0x08) != 0;
        long mask = RangeLock.mask(lba, blocks);
        long[] stamps = RangeLock.stamps();
        dev.rangeLock().lockExclusive(mask, stamps);
        try {
            ByteBuffer buf = ByteBuffer.allocate(bytes);
            dev.backstore().read(lba, buf);
            for (int i = 0; i < bytes; i++) {
                buf.put(i, (byte) (buf.get(i) | cmd.outU8(i)));
            }
            buf.clear();
            boolean durable = (fua && dev.attributes().emulateFuaWrite()) || !dev.modePages().writeCacheEnabled();
            dev.backstore().write(lba, buf, durable);
        } catch (IOException e) {
            DataPathErrors.LOG.report(dev.name(), "ORWRITE", lba, blocks, e);
            return cmd.failWithInformation(SenseReason.ofWriteFailure(e), lba);
        } finally {
            dev.rangeLock().unlockExclusive(mask, stamps);
        }
        return CommandDescriptor.DONE;
    }

    /**
     * WRITE ATOMIC(16): the transfer length, LBA alignment and granularity must fit the Block Limits VPD atomic
     * fields; ATOMIC BOUNDARY must be 0 (MAXIMUM ATOMIC BOUNDARY SIZE is 0).
     */
    static int writeAtomic(Command cmd) {
        byte[] cdb = cmd.cdb();
        Device dev = cmd.device();
        DeviceAttributes a = dev.attributes();
        if (!a.emulateWriteAtomic()) {
            return cmd.fail(SenseReason.INVALID_COMMAND_OPERATION_CODE);
        }
        if (!BlockCdb.protectClear(cmd)) {
            return CommandDescriptor.DONE;
        }
        long lba = Cdb16.lba(cdb);
        int blocks = BigEndian.u16(cdb, ATOMIC_TRANSFER_LENGTH);
        if (BigEndian.u16(cdb, ATOMIC_BOUNDARY) != 0) {
            return cmd.failCdbField(ATOMIC_BOUNDARY, -1);
        }
        if (!BlockCdb.inRange(cmd, lba, blocks)) {
            return CommandDescriptor.DONE;
        }
        if (blocks > Math.min(a.maxAtomicTransferLength(), dev.maxTransferBlocks())
                || (a.atomicTransferLengthGranularity() > 1 && blocks % a.atomicTransferLengthGranularity() != 0)) {
            return cmd.failCdbField(ATOMIC_TRANSFER_LENGTH, -1);
        }
        if (a.atomicAlignment() > 1 && lba % a.atomicAlignment() != 0) {
            return cmd.failCdbField(2, -1);
        }
        if (blocks == 0) {
            return CommandDescriptor.DONE;
        }
        int bytes = blocks * dev.blockSize();
        boolean fua = (cdb[1] & 0x08) != 0;
        long mask = RangeLock.mask(lba, blocks);
        long[] stamps = RangeLock.stamps();
        dev.rangeLock().lockExclusive(mask, stamps);
        try {
            boolean durable = (fua && a.emulateFuaWrite()) || !dev.modePages().writeCacheEnabled();
            dev.backstore().write(lba, cmd.dataOutWindow(0, bytes), durable);
        } catch (IOException e) {
            DataPathErrors.LOG.report(dev.name(), "WRITE ATOMIC", lba, blocks, e);
            return cmd.failWithInformation(SenseReason.ofWriteFailure(e), lba);
        } finally {
            cmd.restoreDataOut();
            dev.rangeLock().unlockExclusive(mask, stamps);
        }
        return CommandDescriptor.DONE;
    }
}
