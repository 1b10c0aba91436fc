package io.hostwide.scsi.sd;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.Request;
import io.hostwide.blk.RequestQueue;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.scsi.mid.DeviceInfo;
import io.hostwide.scsi.mid.HostByte;
import io.hostwide.scsi.mid.ScsiCmnd;
import io.hostwide.scsi.mid.ScsiDevice;
import io.hostwide.scsi.mid.UpperDriver;
import io.hostwide.scsi.spec.SenseKey;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One SCSI disk ({@code struct scsi_disk}): the {@link BlockDevice} of a scanned direct-access LUN and its upper
 * driver. READ/WRITE use the 10-byte CDBs unless the LBA or length needs 16 (or {@code force16}), with the FUA bit
 * when the request carries FUA (the block layer keeps it only when the device reports DPOFUA); FLUSH sends
 * SYNCHRONIZE CACHE; DISCARD sends UNMAP when the LUN reports LBPU, else WRITE SAME(16) with UNMAP when it reports
 * LBPWS, else NOTSUPP (the kernel's {@code provisioning_mode} choice). The queue limits come from the device and
 * the host ({@link QueueLimits}), so the block layer splits anything larger before it reaches the disk.
 */
public final class ScsiDisk implements BlockDevice, UpperDriver {
    private static final AtomicInteger DISKS = new AtomicInteger();

    private final ScsiDevice sdev;
    private final DeviceInfo info;
    private final String name;
    private final int lbs;
    private final boolean use16;
    private final boolean fuaWrites;
    private final long maxTransferBytes;
    private final DiscardMode discardMode;
    private final AtomicInteger nextCtx = new AtomicInteger();
    private volatile boolean closed;

    /**
     * @param fuaWrites set FUA on every WRITE (write-through use of a write-back cache)
     * @param force16   always use the 16-byte CDBs
     */
    public ScsiDisk(ScsiDevice sdev, boolean fuaWrites, boolean force16) {
        this(sdev, fuaWrites, force16, DiscardMode.AUTO);
    }

    /** @param discardMode how DISCARD is sent ({@code provisioning_mode}); AUTO follows the LBP VPD page */
    public ScsiDisk(ScsiDevice sdev, boolean fuaWrites, boolean force16, DiscardMode discardMode) {
        this.sdev = sdev;
        this.discardMode = discardMode;
        this.info = sdev.info();
        if (info == null) {
            throw new IllegalArgumentException(sdev + " was not scanned");
        }
        this.name = diskName(DISKS.getAndIncrement());
        this.lbs = info.logicalBlockSize();
        this.use16 = force16 || info.capacityBlocks() > 0xFFFF_FFFFL;
        this.fuaWrites = fuaWrites;
        this.maxTransferBytes = QueueLimits.apply(sdev.queue(), sdev.host().template(), info, discardMode);
        // sd: blk_queue_write_cache(q, WCE, DPOFUA): the flush machinery above us follows these two bits.
        sdev.queue().setWriteCache(info.writeCache(), info.dpoFua());
        // sd_read_block_characteristics: VPD B1h's medium rotation rate decides both the midlayer's flag (the
        // budget bypass) and queue/rotational, which schedulers and users read.
        sdev.rotational(!info.nonRotational());
        sdev.queue().setRotational(!info.nonRotational());
        sdev.attach(this);
    }

    /** sda, sdb, …, sdz, sdaa, … */
    static String diskName(int index) {
        StringBuilder sb = new StringBuilder();
        int i = index;
        do {
            sb.insert(0, (char) ('a' + i % 26));
            i = i / 26 - 1;
        } while (i >= 0);
        return "sd" + sb;
    }

    public ScsiDevice scsiDevice() { return sdev; }

    public DeviceInfo info() { return info; }

    /** Largest READ/WRITE this disk sends, in bytes. */
    public long maxTransferBytes() { return maxTransferBytes; }

    @Override
    public String name() { return name; }

    @Override
    public int logicalBlockSize() { return lbs; }

    @Override
    public long capacityBytes() { return info.capacityBytes(); }

    @Override
    public SubmitHandle openHandle() {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
        RequestQueue q = sdev.queue();
        int ctx = Math.floorMod(nextCtx.getAndIncrement(), q.nrCtx());
        return new SubmitHandle(this, q.submitter(ctx));
    }

    @Override
    public RequestQueue queue() { return sdev.queue(); }

    /** Waits for outstanding I/O and removes the LUN from its host. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        sdev.host().removeDevice(sdev);
    }

    // ---- UpperDriver: sd_init_command / sd_done ----

    @Override
    public BlkStatus initCommand(ScsiCmnd cmd, Request rq) {
        return switch (rq.op()) {
            case READ, WRITE -> readWrite(cmd, rq);
            case FLUSH -> {
                byte[] c = cdbOf(cmd);
                sdev.prepare(cmd, c, SdCdb.synchronizeCache(c, use16), ScsiCmnd.DIR_NONE, null, 0, 0);
                yield BlkStatus.OK;
            }
            case DISCARD -> discard(cmd, rq);
            case DRV_IN, DRV_OUT -> passthrough(cmd, rq);
        };
    }

    /** {@code scsi_setup_scsi_cmnd}: the submitter's CDB as is, with the request's data window. */
    private BlkStatus passthrough(ScsiCmnd cmd, Request rq) {
        if (!(rq.passthrough() instanceof SgIo sg)) {
            return BlkStatus.IOERR;
        }
        ByteBuffer buf = rq.buffer();
        int dir = rq.length() == 0 ? ScsiCmnd.DIR_NONE
                : rq.op() == ReqOp.DRV_IN ? ScsiCmnd.DIR_FROM_DEVICE : ScsiCmnd.DIR_TO_DEVICE;
        sdev.prepare(cmd, sg.cdbBytes(), sg.cdbLength(), dir, buf, buf == null ? 0 : buf.position(), rq.length());
        return BlkStatus.OK;
    }

    private BlkStatus readWrite(ScsiCmnd cmd, Request rq) {
        if (rq.length() > maxTransferBytes) {
            return BlkStatus.IOERR;
        }
        boolean write = rq.op() == ReqOp.WRITE;
        long lba = rq.offset() / lbs;
        int blocks = rq.length() / lbs;
        byte[] c = cdbOf(cmd);
        int n = SdCdb.readWrite(c, write, lba, blocks, write && (fuaWrites || rq.isFua()), use16);
        ByteBuffer buf;
        if (rq.nrSegments() == 1) {
            buf = rq.buffer();
        } else {
            // Merged submissions: one contiguous transfer through the command's bounce buffer
            // (the loop and iSCSI drivers move one buffer per command).
            buf = cmd.bounce(rq.length());
            if (write) {
                gather(rq, buf);
            }
        }
        sdev.prepare(cmd, c, n, write ? ScsiCmnd.DIR_TO_DEVICE : ScsiCmnd.DIR_FROM_DEVICE, buf, buf.position(), rq.length());
        return BlkStatus.OK;
    }

    private BlkStatus discard(ScsiCmnd cmd, Request rq) {
        long lba = rq.offset() / lbs;
        int blocks = rq.length() / lbs;
        byte[] c = cdbOf(cmd);
        boolean unmap = discardMode == DiscardMode.UNMAP ? info.thinProvisioned()
                : discardMode == DiscardMode.AUTO && info.lbpu();
        boolean writeSame = discardMode == DiscardMode.WRITE_SAME_16 ? info.thinProvisioned()
                : discardMode == DiscardMode.AUTO && info.lbpws();
        if (unmap) {
            if (info.maxUnmapBlocks() != 0 && blocks > info.maxUnmapBlocks()) {
                return BlkStatus.IOERR;
            }
            int len = SdCdb.UNMAP_HEADER + SdCdb.UNMAP_DESCRIPTOR;
            ByteBuffer p = cmd.scratch(len);
            SdCdb.unmapParameters(p.array(), lba, blocks);
            sdev.prepare(cmd, c, SdCdb.unmap(c, len), ScsiCmnd.DIR_TO_DEVICE, p, 0, len);
            return BlkStatus.OK;
        }
        if (writeSame) {
            if (info.maxWriteSameBlocks() != 0 && blocks > info.maxWriteSameBlocks()) {
                return BlkStatus.IOERR;
            }
            ByteBuffer p = cmd.scratch(lbs);
            sdev.prepare(cmd, c, SdCdb.writeSameUnmap(c, lba, blocks), ScsiCmnd.DIR_TO_DEVICE, p, 0, lbs);
            return BlkStatus.OK;
        }
        return BlkStatus.NOTSUPP;
    }

    /** The command's own CDB array: the disk builds in place, then prepare copies within the same array. */
    private static byte[] cdbOf(ScsiCmnd cmd) {
        return cmd.cdb();
    }

    /** Copies every segment's data, in device order, into {@code dst} (position 0). */
    private static void gather(Request rq, ByteBuffer dst) {
        int at = 0;
        for (int i = 0; i < rq.nrSegments(); i++) {
            ByteBuffer seg = rq.segmentBuffer(i);
            int len = rq.segmentLength(i);
            dst.put(at, seg, seg.position(), len);
            at += len;
        }
    }

    /** Copies {@code src} back out into the segments of a merged READ. */
    private static void scatter(ByteBuffer src, Request rq) {
        int at = 0;
        for (int i = 0; i < rq.nrSegments(); i++) {
            ByteBuffer seg = rq.segmentBuffer(i);
            int len = rq.segmentLength(i);
            seg.put(seg.position(), src, at, len);
            at += len;
        }
    }

    @Override
    public BlkStatus done(ScsiCmnd cmd) {
        Request prq = cmd.request();
        if (prq != null && prq.passthrough() instanceof SgIo sg) {
            sg.complete(cmd.hostByte(), cmd.status(), cmd.sense(), cmd.senseLength(), cmd.resid());
            return hostStatus(cmd.hostByte());
        }
        int result = cmd.result();
        if (result == 0) {
            Request rq = cmd.request();
            if (rq != null && rq.nrSegments() > 1 && rq.op() == ReqOp.READ && cmd.resid() == 0) {
                scatter(cmd.bounce(rq.length()), rq);
            }
            return cmd.resid() == 0 ? BlkStatus.OK : BlkStatus.IOERR;
        }
        int hostByte = cmd.hostByte();
        if (hostByte == HostByte.DID_TIME_OUT) {
            return BlkStatus.TIMEOUT;
        }
        if (hostByte == HostByte.DID_NO_CONNECT || hostByte == HostByte.DID_BAD_TARGET) {
            return BlkStatus.OFFLINE;
        }
        if (hostByte == HostByte.DID_OK && cmd.senseKey() == SenseKey.ILLEGAL_REQUEST
                && (cmd.ascAscq() >>> 8) == 0x20) {
            return BlkStatus.NOTSUPP;   // INVALID COMMAND OPERATION CODE
        }
        return BlkStatus.IOERR;
    }

    /** A passthrough's block status: OK whenever the device answered (its SCSI status is in the SgIo). */
    private static BlkStatus hostStatus(int hostByte) {
        return switch (hostByte) {
            case HostByte.DID_OK -> BlkStatus.OK;
            case HostByte.DID_TIME_OUT -> BlkStatus.TIMEOUT;
            case HostByte.DID_NO_CONNECT, HostByte.DID_BAD_TARGET -> BlkStatus.OFFLINE;
            default -> BlkStatus.IOERR;
        };
    }

    @Override
    public String toString() {
        return name + " (" + sdev.name() + ", " + info.capacityBlocks() + " x " + lbs + ")";
    }
}
