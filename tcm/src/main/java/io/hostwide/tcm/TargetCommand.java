package io.hostwide.tcm;

import io.hostwide.scsi.spec.CdbGroup;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseData;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.CommandTable;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.ItNexus;
import io.hostwide.tcm.lu.SessionLun;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spi.Background;
import io.hostwide.tcm.spi.Sense;
import io.hostwide.tcm.spi.SenseReason;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Set;

/**
 * One SCSI command from one I_T nexus: what the fabric hands in, and the results the core hands back. Pooled per
 * {@link Session}: a fabric takes one with {@link Session#newCommand()}, fills it with {@link #setup}, puts the
 * Data-Out bytes in (the transport collects all Data-Out — immediate, unsolicited and R2T-solicited — up to its
 * expected data transfer length <em>before</em> submitting), submits it, receives it back in
 * {@link Fabric#complete(TargetCommand)} and finally {@link #release()}s it.
 *
 * <p>Residuals (SAM-5 §5.4.3, RFC 7143 §11.4.5): the core compares the data transfer length the CDB implies with
 * the expected length the transport announced. Data-In beyond the expected length is not transferred (overflow);
 * less data than expected is an underflow. A Data-Out command whose CDB asks for more than the expected length is
 * rejected with INVALID FIELD IN INFORMATION UNIT before any data changes (overflow residual set).
 *
 * <p>Thread contract: a command belongs to one thread at a time; hand-offs (to an I/O queue, back to the fabric,
 * back to the pool) go through queues that publish it. Only {@link #state} is touched concurrently.
 */
public final class TargetCommand implements Command {

    /** Direction flags of the transport header (RFC 7143 §11.3.1 R and W bits); both set = bidirectional. */
    public static final int DIR_NONE = 0;
    public static final int DIR_READ = 1;
    public static final int DIR_WRITE = 2;

    public static final int RESIDUAL_NONE = 0;
    public static final int RESIDUAL_OVERFLOW = 1;
    public static final int RESIDUAL_UNDERFLOW = 2;

    /** SPC-4 §4.5.1: sense data is at most 252 bytes. */
    public static final int MAX_SENSE_LENGTH = Sense.MAX_LENGTH;

    static final int FREE = 0, PREPARED = 1, SUBMITTED = 2, COMPLETED = 3;
    private static final VarHandle STATE;
    private static final VarHandle ABORT;
    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(TargetCommand.class, "state", int.class);
            ABORT = MethodHandles.lookup().findVarHandle(TargetCommand.class, "abortWord", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Session session;
    private final BufferCache buffers;

    // --- fabric inputs ---------------------------------------------------------------------------------------
    private long lun;
    private final byte[] cdb = new byte[CdbGroup.MAX_CDB_LENGTH];
    private int cdbLength;
    private TaskAttribute taskAttribute = TaskAttribute.SIMPLE;
    private long tag;
    private int expectedLength;
    private int bidiReadLength;
    private int directionFlags;
    private ByteBuffer dataOut;
    private int dataOutStart;
    private Object fabricPrivate;

    // --- core state ------------------------------------------------------------------------------------------
    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;
    SessionLun sessionLun;
    Device device;
    LuRuntime runtime;
    CommandDescriptor descriptor;
    /** Bytes the CDB implies in its data direction (SPDTL); allocation length for Data-In commands. */
    long cdbTransferLength;
    int gateIndex;
    int gatesPassed;
    /** Task-attribute gate state (see {@link TaskAttributeGate}) and its intrusive delayed-list link. */
    int orderingState;
    TargetCommand parkedNext;
    boolean dataOutMismatch;

    // --- task management (SAM-5 §7): submission sequence << 4 | ABORT_* bits ---------------------------------
    /** A task management function asked for this submission to be aborted. */
    public static final long ABORT_REQUESTED = 1;
    /** This submission completed (normally or aborted). */
    public static final long ABORT_COMPLETED = 2;
    /** The abort came from another I_T nexus and TAS = 1: the command ends with TASK ABORTED status. */
    public static final long ABORT_TAS = 4;
    /** The fabric has seen the completion of this submission. */
    public static final long ABORT_DELIVERED = 8;
    private static final long ABORT_BITS = 0xF;
    @SuppressWarnings("unused") // accessed through ABORT
    private volatile long abortWord = ABORT_COMPLETED | ABORT_DELIVERED; // not live until submitted
    private boolean aborted;
    private boolean responseSuppressed;

    // --- results ---------------------------------------------------------------------------------------------
    private int status;
    private final byte[] sense = new byte[MAX_SENSE_LENGTH];
    private int senseLength;
    private SenseReason reason;
    private int uaAscAscq;
    private int senseKeySpecific = -1;
    private long information;
    private boolean informationValid;
    private ByteBuffer dataIn;
    private int dataInCapacity;
    private int dataInLength;
    private int dataInSend;
    private int residualKind;
    private int residualCount;
    /** When the fabric submitted the command to the core; the start of the device's latency statistics. */
    long submitNanos;

    TargetCommand(Session session) {
        this.session = session;
        this.buffers = new BufferCache();
    }

    // ====================================== fabric side ======================================================

    /**
     * Fills the command. {@code cdbLength} may exceed the command's own length (iSCSI carries 16 bytes at least);
     * extended CDBs up to 260 bytes are accepted (RFC 7143 §11.2.2.3 AHS).
     *
     * @param lun            the 8-byte SAM LUN as a long (wire byte 0 in bits 63..56)
     * @param expectedLength expected data transfer length (for bidirectional: the Data-Out length)
     * @param directionFlags {@link #DIR_READ} | {@link #DIR_WRITE}
     */
    public TargetCommand setup(long lun, byte[] cdbSrc, int cdbOffset, int cdbLength, TaskAttribute attribute,
                               long tag, int expectedLength, int directionFlags) {
        this.lun = lun;
        int n = Math.max(0, Math.min(cdbLength, this.cdb.length));
        System.arraycopy(cdbSrc, cdbOffset, this.cdb, 0, n);
        if (n < this.cdb.length) {
            Arrays.fill(this.cdb, n, Math.min(this.cdb.length, Math.max(n, 32)), (byte) 0);
        }
        this.cdbLength = n;
        this.taskAttribute = attribute == null ? TaskAttribute.SIMPLE : attribute;
        this.tag = tag;
        this.expectedLength = Math.max(0, expectedLength);
        this.directionFlags = directionFlags & (DIR_READ | DIR_WRITE);
        this.bidiReadLength = 0;
        return this;
    }

    /** RFC 7143 §11.2.2.4 Bidirectional Read Expected Data Transfer Length, when both direction flags are set. */
    public TargetCommand bidiReadLength(int length) {
        this.bidiReadLength = Math.max(0, length);
        return this;
    }

    /**
     * A pooled buffer for the fabric to fill with Data-Out: position 0, limit {@code capacity}. Flip it (or set
     * position/limit) so that position..limit holds the received bytes before submitting.
     */
    public ByteBuffer dataOutBuffer(int capacity) {
        ByteBuffer b = buffers.out(capacity);
        this.dataOut = b;
        return b;
    }

    /** Uses the fabric's own buffer for Data-Out: bytes position..limit; must stay valid until completion. */
    public TargetCommand dataOut(ByteBuffer data) {
        this.dataOut = data;
        return this;
    }

    /** Opaque per-command state of the fabric (e.g. its task record); kept across the pool cycle until reset. */
    public TargetCommand fabricPrivate(Object o) { this.fabricPrivate = o; return this; }

    public Object fabricPrivate() { return fabricPrivate; }

    /**
     * Returns the command to its session's pool. Call after the response has been sent (or instead of submitting a
     * command the fabric decided not to send).
     *
     * @throws IllegalStateException when released twice or before the core completed it (a fabric bug that would
     *                               otherwise hand one command to two users)
     */
    public void release() {
        // release: pairs with the acquire CAS in Session.newCommand's markPrepared
        if (!STATE.compareAndSet(this, COMPLETED, FREE) && !STATE.compareAndSet(this, PREPARED, FREE)) {
            throw new IllegalStateException("release of a command that is " + stateName() + ": " + this);
        }
        this.dataOut = null;
        this.fabricPrivate = null;
        this.sessionLun = null;
        this.device = null;
        this.runtime = null;
        this.descriptor = null;
        session.recycle(this);
    }

    private String stateName() {
        return switch ((int) STATE.getVolatile(this)) {
            case FREE -> "already free";
            case SUBMITTED -> "still in the core";
            default -> "in state " + (int) STATE.getVolatile(this);
        };
    }

    // --- results, valid in Fabric.complete -------------------------------------------------------------------

    public int status() { return status; }

    public byte[] senseBuffer() { return sense; }

    public int senseLength() { return senseLength; }

    /** Data-In to transfer: position 0, limit = bytes to send (never more than the expected length). */
    public ByteBuffer dataIn() {
        if (dataIn == null) {
            return BufferCache.EMPTY;
        }
        return dataIn.limit(dataInSend).position(0);
    }

    public int dataInSendLength() { return dataInSend; }

    /** {@link #RESIDUAL_NONE}, {@link #RESIDUAL_OVERFLOW} or {@link #RESIDUAL_UNDERFLOW}. */
    public int residualKind() { return residualKind; }

    public int residualCount() { return residualCount; }

    public long tag() { return tag; }

    public long lun() { return lun; }

    public Session session() { return session; }

    public TaskAttribute taskAttribute() { return taskAttribute; }

    /**
     * Whether a task management function aborted this command (valid in {@link Fabric#complete}). An aborted
     * command still reaches {@code Fabric.complete} exactly once: with status TASK ABORTED when it belonged to
     * another I_T nexus than the TMF's (TAS = 1, SAM-5 §7.1), otherwise with {@link #responseSuppressed()} set —
     * the fabric then sends nothing for it (RFC 7143 §11.5.1) and just releases it.
     */
    public boolean aborted() { return aborted; }

    /** The fabric must not send a response for this command (aborted from its own I_T nexus). */
    public boolean responseSuppressed() { return responseSuppressed; }

    /** The reason a command failed, or null when it completed with GOOD / CONDITION MET. */
    public SenseReason reason() { return reason; }

    // ====================================== core / handler side ==============================================

    public byte[] cdb() { return cdb; }

    public int cdbLength() { return cdbLength; }

    public int opcode() { return cdb[0] & 0xFF; }

    public int expectedLength() { return expectedLength; }

    public int directionFlags() { return directionFlags; }

    /** Expected Data-In length the transport announced (0 when the read flag is clear). */
    public int expectedDataInLength() {
        if ((directionFlags & DIR_READ) == 0) {
            return 0;
        }
        return (directionFlags & DIR_WRITE) != 0 ? bidiReadLength : expectedLength;
    }

    /** Expected Data-Out length (0 when the write flag is clear). */
    public int expectedDataOutLength() { return (directionFlags & DIR_WRITE) != 0 ? expectedLength : 0; }

    public Device device() { return device; }

    @Override
    public ItNexus nexus() { return session; }

    @Override
    public TargetPort targetPort() { return session.port(); }

    @Override
    public void complete() { session.core().complete(this); }

    @Override
    public Background background() { return session.core().background(); }

    @Override
    public int supportedTaskManagement() { return session.core().supportedTaskManagement(); }

    @Override
    public void abortTasksOf(Set<? extends ItNexus> nexuses, Runnable then) {
        session.core().taskManagement().abortFor(nexuses, device, this, session, then);
    }

    public SessionLun sessionLun() { return sessionLun; }

    public CommandDescriptor descriptor() { return descriptor; }

    /** The command table of the LU this command addresses (REPORT SUPPORTED OPERATION CODES reports it). */
    public CommandTable commandTable() { return runtime.commandTable(); }

    /** Data implied by the CDB in bytes (transfer length × block size, allocation or parameter list length). */
    public long cdbTransferLength() { return cdbTransferLength; }

    /** Number of Data-Out bytes available to the handler (never more than the CDB implies). */
    public int dataOutLength() {
        if (dataOut == null) {
            return 0;
        }
        return (int) Math.min(dataOut.limit() - dataOutStart, cdbTransferLength);
    }

    public int outU8(int off) { return dataOut.get(dataOutStart + off) & 0xFF; }

    public int outU16(int off) { return (outU8(off) << 8) | outU8(off + 1); }

    public long outU32(int off) { return dataOut.getInt(dataOutStart + off) & 0xFFFF_FFFFL; }

    public long outS64(int off) { return dataOut.getLong(dataOutStart + off); }

    /** Data-Out bytes [off, off+len) as the buffer's position..limit; restore with {@link #restoreDataOut()}. */
    public ByteBuffer dataOutWindow(int off, int len) {
        dataOut.limit(dataOutStart + off + len).position(dataOutStart + off);
        return dataOut;
    }

    public void restoreDataOut() {
        dataOut.limit(dataOut.capacity()).position(dataOutStart);
    }

    /** Copies Data-Out bytes into {@code dst}. */
    public void copyDataOut(int off, byte[] dst, int dstOff, int len) {
        dataOut.get(dataOutStart + off, dst, dstOff, len);
    }

    /** A pooled Data-In buffer with room for {@code capacity} bytes: position 0, limit capacity. */
    public ByteBuffer dataInBuffer(int capacity) {
        dataIn = buffers.in(capacity);
        dataInCapacity = capacity;
        return dataIn;
    }

    /** Declares the full length of the response the handler produced in {@link #dataInBuffer}. */
    public void dataInLength(int length) { this.dataInLength = length; }

    /** Copies a response built in a byte array into the Data-In buffer. */
    public int respond(byte[] src, int fullLength) {
        int n = (int) Math.min(fullLength, Math.min(cdbTransferLength, src.length));
        dataInBuffer(Math.max(n, 0)).put(0, src, 0, Math.max(n, 0));
        dataInLength = fullLength;
        return CommandDescriptor.DONE;
    }

    /** A zeroed scratch array of at least {@code size} bytes, reused across the pool cycle. */
    public byte[] scratch(int size) { return buffers.scratch(size); }

    /** Fails the command; returns {@link CommandDescriptor#DONE} for a handler's {@code return}. */
    public int fail(SenseReason r) {
        this.reason = r;
        this.senseKeySpecific = -1;
        this.informationValid = false;
        return CommandDescriptor.DONE;
    }

    /** INVALID FIELD IN CDB with a field pointer to byte {@code byteOffset} (bit {@code bit}, or -1 for none). */
    public int failCdbField(int byteOffset, int bit) {
        fail(SenseReason.INVALID_FIELD_IN_CDB);
        this.senseKeySpecific = SenseData.fieldPointer(true, byteOffset, bit);
        return CommandDescriptor.DONE;
    }

    /** INVALID FIELD IN PARAMETER LIST with a field pointer into the parameter data. */
    public int failParameterField(int byteOffset, int bit) {
        fail(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST);
        this.senseKeySpecific = SenseData.fieldPointer(false, byteOffset, bit);
        return CommandDescriptor.DONE;
    }

    /**
     * A failure whose sense-key-specific field is a PROGRESS INDICATION (SPC-4 §4.4.2.4.4): NOT READY while a
     * sanitize runs, with the fraction done in 65536ths.
     */
    public int failWithProgress(SenseReason r, int progress) {
        fail(r);
        this.senseKeySpecific = Sense.progressIndication(progress);
        return CommandDescriptor.DONE;
    }

    /** A failure whose INFORMATION field carries {@code info} (MISCOMPARE offset, failing LBA). */
    public int failWithInformation(SenseReason r, long info) {
        fail(r);
        this.information = info;
        this.informationValid = true;
        return CommandDescriptor.DONE;
    }

    /** CHECK CONDITION / UNIT ATTENTION with the ASC/ASCQ of the queued condition. */
    public int failUnitAttention(int ascAscq) {
        fail(SenseReason.UNIT_ATTENTION);
        this.uaAscAscq = ascAscq;
        return CommandDescriptor.DONE;
    }

    /** Completes with CONDITION MET instead of GOOD (PRE-FETCH, SBC-4 §5.9). */
    public void conditionMet() { this.status = ScsiStatus.CONDITION_MET; }

    public boolean failed() { return reason != null; }

    // ====================================== lifecycle (core) =================================================

    boolean markPrepared() { return STATE.compareAndSet(this, FREE, PREPARED); }

    void resetForUse() {
        status = ScsiStatus.GOOD;
        senseLength = 0;
        reason = null;
        uaAscAscq = 0;
        senseKeySpecific = -1;
        informationValid = false;
        dataIn = null;
        dataInCapacity = 0;
        dataInLength = 0;
        dataInSend = 0;
        residualKind = RESIDUAL_NONE;
        residualCount = 0;
        gateIndex = 0;
        gatesPassed = 0;
        aborted = false;
        responseSuppressed = false;
        orderingState = 0;
        parkedNext = null;
        cdbTransferLength = 0;
        dataOutMismatch = false;
        dataOut = null;
        dataOutStart = 0;
    }

    /** PREPARED → SUBMITTED; records where the Data-Out starts (bytes position..limit are the Data-Out). */
    boolean markSubmitted() {
        if (!STATE.compareAndSet(this, PREPARED, SUBMITTED)) {
            return false;
        }
        submitNanos = System.nanoTime();
        if (dataOut != null) {
            dataOutStart = dataOut.position();
        }
        // volatile write: publishes tag/LUN/session fields to a TMF scan that reads abortWord first
        abortWord = ((abortWord >>> 4) + 1) << 4;
        return true;
    }

    /** Submitted and not yet completed. */
    boolean inCore() { return (int) STATE.getAcquire(this) == SUBMITTED; }

    /** @return true exactly once per submission (guards against double completion). */
    boolean markCompleted() { return STATE.compareAndSet(this, SUBMITTED, COMPLETED); }

    // --- task management --------------------------------------------------------------------------------------

    /** The abort word: submission sequence in bits 63..4, {@code ABORT_*} bits below. Read by TMF scans. */
    public long abortWord() { return abortWord; }

    /** Whether this submission is live (submitted, not completed) for the abort word {@code w}. */
    public static boolean live(long w) { return (w & ABORT_BITS) == 0 && w != 0; }

    /** Submission sequence of an abort word. */
    public static long sequence(long w) { return w >>> 4; }

    /**
     * Asks for the submission seen as {@code seen} to be aborted. Fails when it completed, was aborted already or
     * the command has been recycled since (the sequence changed).
     */
    public boolean requestAbort(long seen, boolean tas) {
        return live(seen) && ABORT.compareAndSet(this, seen, seen | ABORT_REQUESTED | (tas ? ABORT_TAS : 0));
    }

    /** A TMF asked to abort this submission: handlers not yet started skip the work. */
    public boolean abortRequested() { return (abortWord & ABORT_REQUESTED) != 0; }

    /**
     * Marks the submission completed and returns the abort word it had (a full-fence read-modify-write: either
     * requestAbort's CAS came first and this sees ABORT_REQUESTED, or the CAS fails on the COMPLETED bit).
     */
    long markAbortCompleted() { return (long) ABORT.getAndBitwiseOr(this, ABORT_COMPLETED); }

    /** After the fabric saw the completion: tells TMF waiters (unless the command was recycled meanwhile). */
    void markDelivered(long completedWord) {
        ABORT.compareAndSet(this, completedWord, completedWord | ABORT_DELIVERED);
    }

    /** Turns a completion into an aborted one: TASK ABORTED status with TAS, else a suppressed response. */
    void applyAbort(boolean tas) {
        aborted = true;
        responseSuppressed = !tas;
        fail(SenseReason.TASK_ABORTED);
        dataIn = null;
    }

    int dataOutLimitRaw() { return dataOut == null ? 0 : dataOut.limit() - dataOutStart; }

    /** Turns the outcome into status, sense bytes, the Data-In length to send and the residual. */
    void finish(boolean descriptorSense) {
        int expectedIn = expectedDataInLength();
        if (reason != null) {
            status = reason.status();
            dataInSend = 0;
            if (reason.hasSense()) {
                int asc = reason == SenseReason.UNIT_ATTENTION ? uaAscAscq : reason.ascAscq();
                senseLength = Sense.encode(sense, reason.senseKey(), asc, informationValid, information,
                        senseKeySpecific, descriptorSense);
            }
            if (!dataOutMismatch) {
                setResidualFromCounts(0, expectedIn + expectedDataOutLength());
            }
            return;
        }
        if (descriptor != null && descriptor.direction() == CommandDescriptor.DATA_IN) {
            long produced = Math.min(Math.max(dataInLength, 0), cdbTransferLength);
            if (dataIn != null) {
                produced = Math.min(produced, dataInCapacity);
            } else {
                produced = 0;
            }
            dataInSend = (int) Math.min(produced, expectedIn);
            setResidualFromCounts(produced, expectedIn);
        } else if (!dataOutMismatch) {
            long used = descriptor != null && descriptor.direction() == CommandDescriptor.DATA_OUT ? cdbTransferLength : 0;
            dataInSend = 0;
            setResidualFromCounts(used, expectedDataOutLength() + expectedIn);
        }
    }

    void setResidualFromCounts(long wanted, long expected) {
        if (wanted > expected) {
            residualKind = RESIDUAL_OVERFLOW;
            residualCount = (int) Math.min(Integer.MAX_VALUE, wanted - expected);
        } else if (wanted < expected) {
            residualKind = RESIDUAL_UNDERFLOW;
            residualCount = (int) Math.min(Integer.MAX_VALUE, expected - wanted);
        } else {
            residualKind = RESIDUAL_NONE;
            residualCount = 0;
        }
    }

    /** A readable summary for logs and test failures (not for the fast path). */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("TargetCommand[tag=").append(tag).append(" cdb=");
        for (int i = 0; i < Math.min(cdbLength, 16); i++) {
            sb.append(String.format("%02x", cdb[i]));
        }
        sb.append(" status=").append(ScsiStatus.name(status));
        if (reason != null) {
            sb.append(' ').append(reason);
        }
        return sb.append(']').toString();
    }

}
