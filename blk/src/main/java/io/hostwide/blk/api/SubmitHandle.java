package io.hostwide.blk.api;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.IoCallback;
import io.hostwide.blk.ReqFlags;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.Submitter;

import java.nio.ByteBuffer;

/**
 * One job thread's asynchronous I/O on a {@link BlockDevice}. Nothing is
 * allocated per I/O. The data of a READ/WRITE is at
 * {@code buf.position() .. +length}; the buffer's position is never moved and the
 * buffer must stay untouched until the callback. The callback runs exactly once,
 * on any thread, and must not submit (reap completions in the job loop instead).
 * Bad arguments throw {@link IllegalArgumentException} before anything is queued.
 */
public final class SubmitHandle implements AutoCloseable {
    private final BlockDevice dev;
    private final Submitter submitter;
    private final int lbs;
    private final long capacity;

    public SubmitHandle(BlockDevice dev, Submitter submitter) {
        this.dev = dev;
        this.submitter = submitter;
        this.lbs = dev.logicalBlockSize();
        this.capacity = dev.capacityBytes();
    }

    public BlockDevice device() {
        return dev;
    }

    public void read(long offset, int length, ByteBuffer buf, IoCallback cb, long userData) {
        submit(ReqOp.READ, offset, length, buf, cb, userData);
    }

    public void write(long offset, int length, ByteBuffer buf, IoCallback cb, long userData) {
        submit(ReqOp.WRITE, offset, length, buf, cb, userData);
    }

    /** A WRITE with {@link ReqFlags} ({@link ReqFlags#FUA}, {@link ReqFlags#PREFLUSH}). */
    public void write(long offset, int length, ByteBuffer buf, int flags, IoCallback cb, long userData) {
        submit(ReqOp.WRITE, flags, offset, length, buf, cb, userData);
    }

    public void flush(IoCallback cb, long userData) {
        submit(ReqOp.FLUSH, 0, 0, null, cb, userData);
    }

    public void discard(long offset, int length, IoCallback cb, long userData) {
        submit(ReqOp.DISCARD, offset, length, null, cb, userData);
    }

    /** Waits for a tag when all are in use. */
    public void submit(ReqOp op, long offset, int length, ByteBuffer buf, IoCallback cb, long userData) {
        submit(op, 0, offset, length, buf, cb, userData);
    }

    /** {@link #submit} with {@link ReqFlags}: FUA on a WRITE, PREFLUSH on a WRITE or FLUSH. */
    public void submit(ReqOp op, int flags, long offset, int length, ByteBuffer buf, IoCallback cb, long userData) {
        check(op, flags, offset, length, buf, cb);
        submitter.submit(op, flags, offset, length, buf, cb, userData);
    }

    /** Never waits: false (and no callback) when no tag is free. */
    public boolean trySubmit(ReqOp op, long offset, int length, ByteBuffer buf, IoCallback cb, long userData) {
        return trySubmit(op, 0, offset, length, buf, cb, userData);
    }

    /** {@link #trySubmit} with {@link ReqFlags}. */
    public boolean trySubmit(ReqOp op, int flags, long offset, int length, ByteBuffer buf, IoCallback cb,
                             long userData) {
        check(op, flags, offset, length, buf, cb);
        return submitter.trySubmit(op, flags, offset, length, buf, cb, userData);
    }

    /**
     * A driver-private command ({@link ReqOp#DRV_IN} / {@link ReqOp#DRV_OUT}, SG_IO's role) with its data at
     * {@code buf.position() .. +length} (null and 0 for none). {@code cmd} is the driver's command description (for
     * a SCSI disk an {@code SgIo}: CDB in, status and sense out). The callback says whether the command was
     * delivered; NOTSUPP when this device takes no passthrough. Waits for a tag like {@link #submit}.
     */
    public void passthrough(ReqOp op, Object cmd, ByteBuffer buf, int length, IoCallback cb, long userData) {
        if (op == null || !op.isPassthrough() || cmd == null || cb == null) {
            throw new IllegalArgumentException("passthrough needs DRV_IN or DRV_OUT, a command and a callback");
        }
        if (length < 0 || (length > 0 && (buf == null || buf.remaining() < length))) {
            throw new IllegalArgumentException(op + ": buffer with at least " + length + " bytes remaining required");
        }
        if (op == ReqOp.DRV_IN && length > 0 && buf.isReadOnly()) {
            throw new IllegalArgumentException("DRV_IN into a read-only buffer");
        }
        submitter.submitPassthrough(op, cmd, buf, length, cb, userData);
    }

    /**
     * Reaps completions on this thread ({@code blk_poll}, fio's {@code hipri}): see
     * {@link io.hostwide.blk.BlkMqOps#poll}. Returns the completions processed, 0 when {@code timeoutNanos} ran out,
     * -1 when the device cannot be polled now (wait for the callbacks instead). Callbacks of any submitter may run
     * inside this call.
     */
    public int poll(long timeoutNanos) {
        return submitter.poll(timeoutNanos);
    }

    /** Holds submissions until {@link #finishPlug()} (or 32 are held), then sends them as one batch. */
    public void startPlug() {
        submitter.startPlug();
    }

    public void finishPlug() {
        submitter.finishPlug();
    }

    /** Sends anything still plugged. */
    @Override
    public void close() {
        submitter.finishPlug();
    }

    private void check(ReqOp op, int flags, long offset, int length, ByteBuffer buf, IoCallback cb) {
        if (op == null || cb == null) {
            throw new IllegalArgumentException("op and callback are required");
        }
        ReqFlags.check(op, flags);
        if (op.isPassthrough()) {
            throw new IllegalArgumentException(op + " goes through passthrough(), with its command");
        }
        if (op == ReqOp.FLUSH) {
            return;
        }
        if (length <= 0 || length % lbs != 0) {
            throw new IllegalArgumentException(op + ": length " + length + " must be a positive multiple of " + lbs);
        }
        if (offset < 0 || offset % lbs != 0) {
            throw new IllegalArgumentException(op + ": offset " + offset + " must be a non-negative multiple of " + lbs);
        }
        if (offset > capacity - length) {
            throw new IllegalArgumentException(op + ": [" + offset + ", +" + length + ") beyond capacity " + capacity);
        }
        if (op.hasData()) {
            if (buf == null || buf.remaining() < length) {
                throw new IllegalArgumentException(op + ": buffer with at least " + length + " bytes remaining required");
            }
            if (op == ReqOp.READ && buf.isReadOnly()) {
                throw new IllegalArgumentException("READ into a read-only buffer");
            }
        }
    }

    /** For callers that want a status name without a switch. */
    public static boolean ok(BlkStatus s) {
        return s == BlkStatus.OK;
    }
}
