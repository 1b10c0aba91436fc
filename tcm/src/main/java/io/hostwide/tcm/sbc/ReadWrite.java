package io.hostwide.tcm.sbc;

import io.hostwide.scsi.spec.Cdb10;
import io.hostwide.scsi.spec.CdbGroup;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.RangeLock;
import io.hostwide.tcm.spi.AsyncBackstore;
import io.hostwide.tcm.spi.BackstoreStatusException;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.DataPathErrors;

import java.io.IOException;
import java.nio.ByteBuffer;

/** READ and WRITE 6/10/12/16 (SBC-4 §5.15-§5.18, §5.40-§5.43), with DPO (a hint) and FUA. */
final class ReadWrite {
    private ReadWrite() {}

    static int read(Command cmd) {
        byte[] cdb = cmd.cdb();
        if (!BlockCdb.protectClear(cmd)) {
            return CommandDescriptor.DONE;
        }
        long lba = BlockCdb.lba(cdb);
        long blocks = BlockCdb.blocks(cdb);
        Device dev = cmd.device();
        if (!BlockCdb.inRange(cmd, lba, blocks) || !withinMaxTransfer(cmd, dev, blocks)) {
            return CommandDescriptor.DONE;
        }
        if (blocks == 0) {
            return CommandDescriptor.DONE;
        }
        int bytes = (int) (blocks * dev.blockSize());
        ByteBuffer buf = cmd.dataInBuffer(bytes);
        if (dev.backstore() instanceof AsyncBackstore async) {
            return readAsync(cmd, dev, async, lba, blocks, buf);
        }
        if (cmd.nowait()) {
            if (!readNow(dev, lba, blocks, buf)) {
                return CommandDescriptor.WOULD_BLOCK; // the I/O queue runs this handler again from the top
            }
            cmd.dataInLength(bytes);
            return CommandDescriptor.DONE;
        }
        try {
            readAtomically(dev, lba, blocks, buf);
        } catch (IOException e) {
            DataPathErrors.LOG.report(dev.name(), "READ", lba, blocks, e);
            return cmd.failWithInformation(SenseReason.ofReadFailure(e), lba);
        }
        cmd.dataInLength(bytes);
        return CommandDescriptor.DONE;
    }

    /**
     * READ on an asynchronous backstore: submitted from this thread, completed from the backstore's. The range is
     * held shared until the data is in (an optimistic read would need its stamps kept per command to validate on
     * the other thread; a network round trip dwarfs the lock), so no COMPARE AND WRITE is seen half done.
     */
    private static int readAsync(Command cmd, Device dev, AsyncBackstore async, long lba, long blocks, ByteBuffer buf) {
        RangeLock locks = dev.rangeLock();
        long mask = RangeLock.mask(lba, blocks);
        int bytes = buf.remaining();
        locks.lockShared(mask, RangeLock.stamps());
        boolean submitted = async.submitRead(lba, buf, e -> {
            locks.unlockSharedUnstamped(mask);
            if (e instanceof BackstoreStatusException s && s.dstRetained()) {
                cmd.retireDataInBuffer(); // the storage may still fill it: never reused
            }
            if (e != null) {
                DataPathErrors.LOG.report(dev.name(), "READ", lba, blocks, e);
                cmd.failWithInformation(SenseReason.ofReadFailure(e), lba);
            } else {
                cmd.dataInLength(bytes);
            }
            cmd.complete();
        });
        if (!submitted) { // the backstore's own queue is full
            locks.unlockSharedUnstamped(mask);
            return cmd.fail(SenseReason.TASK_SET_FULL);
        }
        return CommandDescriptor.ASYNC; // the command may be complete already: touch nothing of it here
    }

    /**
     * Reads [lba, lba + blocks) into {@code buf} so that no COMPARE AND WRITE, ORWRITE or WRITE ATOMIC is seen half
     * done (SBC-4 §5.3, §4.29.2): optimistically, and again under the shared range lock if an atomic command took
     * one of the stripes meanwhile.
     */
    static void readAtomically(Device dev, long lba, long blocks, ByteBuffer buf) throws IOException {
        RangeLock locks = dev.rangeLock();
        long mask = RangeLock.mask(lba, blocks);
        long[] stamps = RangeLock.stamps();
        int start = buf.position();
        if (locks.tryOptimisticRead(mask, stamps)) {
            dev.backstore().read(lba, buf);
            if (locks.validate(mask, stamps)) {
                return;
            }
            buf.position(start);
        }
        locks.lockShared(mask, stamps);
        try {
            dev.backstore().read(lba, buf);
        } finally {
            locks.unlockShared(mask, stamps);
        }
    }

    /**
     * {@link #readAtomically} without blocking, for the submitting thread: true when the backstore had the whole
     * range in memory and no atomic command overlapped it meanwhile. Waiting for the shared range lock could block
     * behind a COMPARE AND WRITE running on the I/O queue, so a lost optimistic read is left to the queue too.
     */
    static boolean readNow(Device dev, long lba, long blocks, ByteBuffer buf) {
        RangeLock locks = dev.rangeLock();
        long mask = RangeLock.mask(lba, blocks);
        long[] stamps = RangeLock.stamps();
        int start = buf.position();
        try {
            if (locks.tryOptimisticRead(mask, stamps) && dev.backstore().tryReadNow(lba, buf)
                    && locks.validate(mask, stamps)) {
                return true;
            }
        } catch (IOException e) {
            // not lost: the queued read meets the same error and reports it (MEDIUM ERROR, the data-path log)
        }
        buf.position(start);
        return false;
    }

    static int write(Command cmd) {
        byte[] cdb = cmd.cdb();
        if (!BlockCdb.protectClear(cmd)) {
            return CommandDescriptor.DONE;
        }
        long lba = BlockCdb.lba(cdb);
        long blocks = BlockCdb.blocks(cdb);
        Device dev = cmd.device();
        if (!BlockCdb.inRange(cmd, lba, blocks) || !withinMaxTransfer(cmd, dev, blocks)) {
            return CommandDescriptor.DONE;
        }
        blocks = transferredBlocks(cmd, dev, blocks);
        if (blocks == 0) {
            return CommandDescriptor.DONE;
        }
        boolean fua = CdbGroup.lengthOf(cdb[0]) != 6 && (cdb[1] & Cdb10.FUA) != 0;
        if (dev.backstore() instanceof AsyncBackstore async) {
            return writeAsync(cmd, dev, async, lba, (int) (blocks * dev.blockSize()), fua);
        }
        if (cmd.nowait()) {
            return writeNow(cmd, dev, lba, (int) (blocks * dev.blockSize()), fua);
        }
        return writeBlocks(cmd, dev, lba, (int) (blocks * dev.blockSize()), 0, fua);
    }

    /**
     * {@link #writeBlocks} without blocking, for the submitting thread: the range is taken shared only if no
     * COMPARE AND WRITE / WRITE ATOMIC holds a stripe of it (waiting for one could block behind the I/O queue), and
     * the backstore writes only what it can without waiting for storage, FUA included (see
     * {@link io.hostwide.tcm.spi.Backstore#tryWriteNow}). Anything else is {@link CommandDescriptor#WOULD_BLOCK}:
     * the I/O queue runs the handler again from the top and writes the whole range, as before.
     */
    private static int writeNow(Command cmd, Device dev, long lba, int bytes, boolean fua) {
        boolean durable = (fua && dev.attributes().emulateFuaWrite()) || !dev.modePages().writeCacheEnabled();
        RangeLock locks = dev.rangeLock();
        long mask = RangeLock.mask(lba, bytes / dev.blockSize());
        long[] stamps = RangeLock.stamps();
        if (!locks.tryLockShared(mask, stamps)) {
            return CommandDescriptor.WOULD_BLOCK;
        }
        try {
            return dev.backstore().tryWriteNow(lba, cmd.dataOutWindow(0, bytes), durable)
                    ? CommandDescriptor.DONE : CommandDescriptor.WOULD_BLOCK;
        } catch (IOException e) {
            // not lost: the queued write meets the same error and reports it (MEDIUM ERROR, the data-path log)
            return CommandDescriptor.WOULD_BLOCK;
        } finally {
            cmd.restoreDataOut();
            locks.unlockShared(mask, stamps);
        }
    }

    /** WRITE on an asynchronous backstore, holding the range shared (against COMPARE AND WRITE) until it is done. */
    private static int writeAsync(Command cmd, Device dev, AsyncBackstore async, long lba, int bytes, boolean fua) {
        boolean durable = (fua && dev.attributes().emulateFuaWrite()) || !dev.modePages().writeCacheEnabled();
        RangeLock locks = dev.rangeLock();
        long blocks = bytes / dev.blockSize();
        long mask = RangeLock.mask(lba, blocks);
        locks.lockShared(mask, RangeLock.stamps());
        // the backstore consumes the Data-Out before submitWrite returns (AsyncBackstore's contract)
        boolean submitted = async.submitWrite(lba, cmd.dataOutWindow(0, bytes), durable, e -> {
            locks.unlockSharedUnstamped(mask);
            cmd.restoreDataOut();
            if (e != null) {
                DataPathErrors.LOG.report(dev.name(), "WRITE", lba, blocks, e);
                cmd.failWithInformation(SenseReason.ofWriteFailure(e), lba);
            }
            cmd.complete();
        });
        if (!submitted) {
            cmd.restoreDataOut();
            locks.unlockSharedUnstamped(mask);
            return cmd.fail(SenseReason.TASK_SET_FULL);
        }
        return CommandDescriptor.ASYNC;
    }

    /**
     * Writes {@code bytes} of Data-Out starting at {@code dataOffset} to {@code lba}, holding the range shared
     * against COMPARE AND WRITE / WRITE ATOMIC.
     */
    static int writeBlocks(Command cmd, Device dev, long lba, int bytes, int dataOffset, boolean fua) {
        boolean durable = (fua && dev.attributes().emulateFuaWrite()) || !dev.modePages().writeCacheEnabled();
        long mask = RangeLock.mask(lba, bytes / dev.blockSize());
        long[] stamps = RangeLock.stamps();
        dev.rangeLock().lockShared(mask, stamps);
        try {
            dev.backstore().write(lba, cmd.dataOutWindow(dataOffset, bytes), durable);
        } catch (IOException e) {
            DataPathErrors.LOG.report(dev.name(), "WRITE", lba, bytes / dev.blockSize(), e);
            return cmd.failWithInformation(SenseReason.ofWriteFailure(e), lba);
        } finally {
            cmd.restoreDataOut();
            dev.rangeLock().unlockShared(mask, stamps);
        }
        return CommandDescriptor.DONE;
    }

    /**
     * The blocks whose Data-Out the initiator sends: all of them, or fewer when the core truncated an overflowing
     * write to the expected length (RFC 7143 §11.4.5.2, see CommandDescriptor.TRUNCATABLE_DATA_OUT).
     */
    static long transferredBlocks(Command cmd, Device dev, long blocks) {
        return Math.min(blocks, cmd.cdbTransferLength() / dev.blockSize());
    }

    /** SBC-4 §6.6.4: a transfer longer than MAXIMUM TRANSFER LENGTH → INVALID FIELD IN CDB. */
    static boolean withinMaxTransfer(Command cmd, Device dev, long blocks) {
        if (blocks > dev.maxTransferBlocks()) {
            cmd.failCdbField(BlockCdb.transferLengthOffset(cmd.cdb()), -1);
            return false;
        }
        return true;
    }
}
