package io.hostwide.scsi.mid;

import io.hostwide.blk.Request;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * One SCSI command ({@code struct scsi_cmnd}): the per-request PDU of a block request, preallocated with the tag
 * set, or a midlayer-internal command (scan, error handling) with no request.
 *
 * <h2>Ownership</h2>
 * {@code owner} is the arbiter between the driver's completion and the timeout path (the kernel's
 * {@code SCMD_STATE_COMPLETE} bit): {@link #done} CASes ISSUED→COMPLETE, the timeout handler CASes
 * ISSUED→TIMED_OUT; exactly one wins and only the winner touches the result. {@code inflight} is
 * {@code SCMD_STATE_INFLIGHT}: set when the host-readiness checks pass, cleared by {@code scsi_device_unbusy};
 * {@code host_busy} is derived by counting it.
 */
public final class ScsiCmnd {
    public static final int DIR_NONE = 0;
    /** Data-Out: host to device ({@code DMA_TO_DEVICE}). */
    public static final int DIR_TO_DEVICE = 1;
    /** Data-In: device to host ({@code DMA_FROM_DEVICE}). */
    public static final int DIR_FROM_DEVICE = 2;
    public static final int SENSE_BUFFERSIZE = 96;

    static final int IDLE = 0;
    static final int ISSUED = 1;
    static final int COMPLETE = 2;
    static final int TIMED_OUT = 3;

    private static final VarHandle OWNER;
    private static final VarHandle INFLIGHT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            OWNER = l.findVarHandle(ScsiCmnd.class, "owner", int.class);
            INFLIGHT = l.findVarHandle(ScsiCmnd.class, "inflight", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final ScsiHost host;
    /** The block request this PDU belongs to; null for internal commands. */
    final Request rq;
    private ByteBuffer bounce;
    ScsiDevice device;
    final byte[] cdb = new byte[32];
    int cdbLength;
    int dataDirection;
    ByteBuffer buffer;
    int bufferPosition;
    int transferLength;
    int result;
    final byte[] sense = new byte[SENSE_BUFFERSIZE];
    int senseLength;
    int resid;
    int retries;
    int allowed;
    long firstIssueNanos;
    boolean abortAttempted;
    /**
     * {@code SCMD_LAST}: no further command follows this one in the current batch (the block layer's {@code bd->last}).
     * Written by the issuing thread before {@code queuecommand}, read by the driver inside it.
     */
    boolean last = true;
    /** Internal commands: signalled when finished. */
    InternalWaiter waiter;
    private Object lldPrivate;
    /** Upper-driver scratch (UNMAP parameter list, WRITE SAME block); allocated on first use, kept for reuse. */
    private java.nio.ByteBuffer scratch;

    @SuppressWarnings("unused") private volatile int owner;
    @SuppressWarnings("unused") private volatile int inflight;

    ScsiCmnd(ScsiHost host, Request rq) {
        this.host = host;
        this.rq = rq;
    }

    // ---- what the LLD reads ----

    public ScsiDevice device() { return device; }

    public ScsiHost host() { return host; }

    public byte[] cdb() { return cdb; }

    public int cdbLength() { return cdbLength; }

    public int opcode() { return cdb[0] & 0xFF; }

    /** {@link #DIR_NONE}, {@link #DIR_TO_DEVICE} or {@link #DIR_FROM_DEVICE}. */
    public int dataDirection() { return dataDirection; }

    /** The data buffer: bytes {@link #bufferPosition()} .. +{@link #transferLength()}; its position is never moved. */
    public ByteBuffer buffer() { return buffer; }

    public int bufferPosition() { return bufferPosition; }

    /** Expected data transfer length in bytes. */
    public int transferLength() { return transferLength; }

    /** {@code blk_mq_unique_tag}, or -1 for internal commands. */
    public int tag() { return rq == null ? -1 : rq.uniqueTag(); }

    /** Hardware queue the command was dispatched on (0 for internal commands). */
    public int hwQueue() { return rq == null ? 0 : rq.hctx().queueNum(); }

    public boolean isInternal() { return rq == null; }

    /**
     * {@code SCMD_LAST}: true when no further command follows in this batch, so the driver should ring its doorbell
     * (send) now; when false the driver may hold the command back until one that is, or {@link
     * LowLevelDriver#commitRqs}. Internal commands are always last.
     */
    public boolean isLast() { return last; }

    public Object lldPrivate() { return lldPrivate; }

    public void lldPrivate(Object o) { this.lldPrivate = o; }

    /** The block request this command carries, or null for internal (scan, error-handling) commands. */
    public Request request() { return rq; }

    /**
     * A reusable buffer of at least {@code n} bytes, position 0, limit n, not cleared: the upper driver's bounce
     * buffer for requests whose data is spread over several segments (merged submissions).
     */
    public ByteBuffer bounce(int n) {
        if (bounce == null || bounce.capacity() < n) {
            bounce = ByteBuffer.allocate(n);
        }
        return bounce.clear().limit(n);
    }

    /** A reusable buffer of at least {@code n} bytes, position 0, limit n, zero-filled (for the upper driver). */
    public ByteBuffer scratch(int n) {
        if (scratch == null || scratch.capacity() < n) {
            scratch = ByteBuffer.allocate(Math.max(n, 64));
        }
        scratch.clear().limit(n);
        for (int i = 0; i < n; i++) {
            scratch.put(i, (byte) 0);
        }
        return scratch;
    }

    // ---- what the midlayer reads after completion ----

    public int result() { return result; }

    public int hostByte() { return HostByte.hostByte(result); }

    public int status() { return HostByte.status(result); }

    public byte[] sense() { return sense; }

    public int senseLength() { return senseLength; }

    public int resid() { return resid; }

    public int retries() { return retries; }

    /**
     * {@code scsi_done}: the driver's completion, from any thread, exactly once per issue. Returns false (and
     * records nothing) when the command is not issued any more — it timed out and belongs to the error handler.
     *
     * @param sense    sense bytes or null; at most {@link #SENSE_BUFFERSIZE} are kept
     * @param resid    bytes not transferred
     */
    public boolean done(int hostByte, int status, byte[] sense, int senseOff, int senseLen, int resid) {
        // Acq/rel CAS: races the timeout path's ISSUED→TIMED_OUT; the winner owns the result fields.
        if (!OWNER.compareAndSet(this, ISSUED, COMPLETE)) {
            return false;
        }
        this.result = HostByte.result(hostByte, status);
        int n = sense == null ? 0 : Math.max(0, Math.min(senseLen, SENSE_BUFFERSIZE));
        if (n > 0) {
            System.arraycopy(sense, senseOff, this.sense, 0, n);
        }
        this.senseLength = n;
        this.resid = Math.max(0, Math.min(resid, transferLength));
        host.complete(this);
        return true;
    }

    /** {@link #done} with GOOD status and no sense. */
    public boolean doneGood(int resid) {
        return done(HostByte.DID_OK, 0, null, 0, 0, resid);
    }

    // ---- ownership ----

    void markIssued() {
        // Release: the fields set by prep are visible to whoever wins the CAS.
        OWNER.setRelease(this, ISSUED);
    }

    /** Timeout path: true if the timeout won the command. */
    boolean markTimedOut() {
        return OWNER.compareAndSet(this, ISSUED, TIMED_OUT);
    }

    /** Takes a refused command back from ISSUED; false when the timeout path won it meanwhile. */
    boolean markIdleIfIssued() {
        return OWNER.compareAndSet(this, ISSUED, IDLE);
    }

    boolean isIssued() {
        return (int) OWNER.getAcquire(this) == ISSUED;
    }

    void markIdle() {
        OWNER.setRelease(this, IDLE);
    }

    void setInflight() {
        INFLIGHT.setRelease(this, 1);
    }

    /** Clears {@code SCMD_STATE_INFLIGHT}; full-fence RMW, so the EH wake-up check that follows sees it. */
    boolean clearInflight() {
        return (int) INFLIGHT.getAndSet(this, 0) != 0;
    }

    boolean isInflight() {
        return (int) INFLIGHT.getAcquire(this) != 0;
    }

    /**
     * Clears the previous issue's result before the next. {@code lldPrivate} is kept: like the driver area behind a
     * kernel {@code scsi_cmnd}, it belongs to the command slot and lives across issues (a driver keeps one task
     * object per slot instead of one per I/O).
     */
    void resetForPrep() {
        result = 0;
        senseLength = 0;
        resid = 0;
    }

    /** Sense key of fixed or descriptor sense, or -1 when there is none. */
    public int senseKey() {
        if (senseLength < 2) {
            return -1;
        }
        return io.hostwide.scsi.spec.SenseData.senseKey(sense);
    }

    /** ASC << 8 | ASCQ, or -1. */
    public int ascAscq() {
        if (senseLength < 14 && !io.hostwide.scsi.spec.SenseData.isDescriptorFormat(sense)) {
            return -1;
        }
        return io.hostwide.scsi.spec.SenseData.ascAscq(sense);
    }

    @Override
    public String toString() {
        return "ScsiCmnd[op=0x" + Integer.toHexString(opcode()) + ", tag=" + (rq == null ? "internal" : tag())
                + ", result=0x" + Integer.toHexString(result) + ", retries=" + retries + "]";
    }
}
