package io.hostwide.tcm.core;

import io.hostwide.scsi.spec.CdbGroup;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.CommandTable;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.ItNexus;
import io.hostwide.tcm.lu.SessionLun;
import io.hostwide.tcm.lu.SharedAccess;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spi.Background;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.TargetCommand;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Set;

/**
 * The core's command: one object per pooled command of a {@link Session}, seen by the fabric as a
 * {@link TargetCommand} and by handlers and gates as a {@link Command}, neither of which sees the rest. What is left
 * here is the core's own life of the command: its pool state (free, prepared, submitted, completed), the abort word
 * task management races completion on, where the pipeline is with it (LU, table row, gates passed, task-set
 * ordering state), and its {@link Outcome}.
 *
 * <p>Thread contract: a command belongs to one thread at a time; hand-offs (to an I/O queue, back to the fabric,
 * back to the pool) go through queues that publish it. Only {@link #state} and the abort word are touched
 * concurrently.
 */
public final class CoreCommand implements TargetCommand, Command {
    static final int FREE = 0, PREPARED = 1, SUBMITTED = 2, COMPLETED = 3;
    private static final VarHandle STATE;
    private static final VarHandle ABORT;
    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(CoreCommand.class, "state", int.class);
            ABORT = MethodHandles.lookup().findVarHandle(CoreCommand.class, "abortWord", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A task management function asked for this submission to be aborted. */
    public static final long ABORT_REQUESTED = 1;
    /** This submission completed (normally or aborted). */
    public static final long ABORT_COMPLETED = 2;
    /** The abort came from another I_T nexus and TAS = 1: the command ends with TASK ABORTED status. */
    public static final long ABORT_TAS = 4;
    /** The fabric has seen the completion of this submission. */
    public static final long ABORT_DELIVERED = 8;
    private static final long ABORT_BITS = 0xF;

    private final Session session;
    private final BufferCache buffers = new BufferCache();
    private final Outcome outcome = new Outcome();

    // what the fabric handed in
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

    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;
    /** Submission sequence << 4 | ABORT_* bits (SAM-5 §7); not live until submitted. */
    @SuppressWarnings("unused") // accessed through ABORT
    private volatile long abortWord = ABORT_COMPLETED | ABORT_DELIVERED;
    private boolean aborted;
    private boolean responseSuppressed;

    // where the pipeline is with it
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
    CoreCommand parkedNext;
    /** The shared LU's policy that admitted this write (the ALUA gate's exit owes it writeDone), else null. */
    private SharedAccess sharedWrite;
    /** When the fabric submitted the command to the core; the start of the device's latency statistics. */
    long submitNanos;
    /** Set by the pipeline around the handler's non-blocking attempt only (same thread: a plain field). */
    boolean nowait;

    CoreCommand(Session session) {
        this.session = session;
    }

    public Session session() { return session; }

    @Override
    public CoreCommand setup(long lun, byte[] cdbSrc, int cdbOffset, int cdbLength, TaskAttribute attribute,
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

    @Override
    public CoreCommand bidiReadLength(int length) {
        this.bidiReadLength = Math.max(0, length);
        return this;
    }

    @Override
    public ByteBuffer dataOutBuffer(int capacity) {
        ByteBuffer b = buffers.out(capacity);
        this.dataOut = b;
        return b;
    }

    @Override
    public CoreCommand dataOut(ByteBuffer data) {
        this.dataOut = data;
        return this;
    }

    @Override
    public CoreCommand fabricPrivate(Object o) { this.fabricPrivate = o; return this; }

    @Override
    public Object fabricPrivate() { return fabricPrivate; }

    @Override
    public void release() {
        // release: pairs with the acquire CAS in Session.newCommand's markPrepared
        if (!STATE.compareAndSet(this, COMPLETED, FREE) && !STATE.compareAndSet(this, PREPARED, FREE)) {
            throw new IllegalStateException("release of a command that is " + stateName() + ": " + this);
        }
        this.dataOut = null;
        buffers.giveBack();
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

    @Override
    public int status() { return outcome.status; }

    @Override
    public byte[] senseBuffer() { return outcome.sense; }

    @Override
    public int senseLength() { return outcome.senseLength; }

    @Override
    public ByteBuffer dataIn() { return outcome.dataInToSend(); }

    @Override
    public int dataInSendLength() { return outcome.dataInSend; }

    @Override
    public int residualKind() { return outcome.residualKind; }

    @Override
    public int residualCount() { return outcome.residualCount; }

    @Override
    public long tag() { return tag; }

    @Override
    public long lun() { return lun; }

    @Override
    public TaskAttribute taskAttribute() { return taskAttribute; }

    @Override
    public boolean aborted() { return aborted; }

    @Override
    public boolean responseSuppressed() { return responseSuppressed; }

    @Override
    public SenseReason reason() { return outcome.reason; }

    @Override
    public byte[] cdb() { return cdb; }

    @Override
    public int cdbLength() { return cdbLength; }

    @Override
    public int opcode() { return cdb[0] & 0xFF; }

    /** Expected Data-In length the transport announced (0 when the read flag is clear). */
    int expectedDataInLength() {
        if ((directionFlags & DIR_READ) == 0) {
            return 0;
        }
        return (directionFlags & DIR_WRITE) != 0 ? bidiReadLength : expectedLength;
    }

    /** Expected Data-Out length (0 when the write flag is clear). */
    int expectedDataOutLength() { return (directionFlags & DIR_WRITE) != 0 ? expectedLength : 0; }

    @Override
    public ItNexus nexus() { return session; }

    @Override
    public TargetPort targetPort() { return session.port(); }

    @Override
    public SessionLun sessionLun() { return sessionLun; }

    @Override
    public Device device() { return device; }

    @Override
    public CommandDescriptor descriptor() { return descriptor; }

    @Override
    public boolean nowait() { return nowait; }

    @Override
    public CommandTable commandTable() { return runtime.commandTable(); }

    @Override
    public long cdbTransferLength() { return cdbTransferLength; }

    @Override
    public int dataOutLength() {
        if (dataOut == null) {
            return 0;
        }
        return (int) Math.min(dataOut.limit() - dataOutStart, cdbTransferLength);
    }

    /** Data-Out bytes the transport delivered, whatever the CDB implies (the pipeline's length checks). */
    int dataOutLimitRaw() { return dataOut == null ? 0 : dataOut.limit() - dataOutStart; }

    @Override
    public int outU8(int off) { return dataOut.get(dataOutStart + off) & 0xFF; }

    @Override
    public int outU16(int off) { return (outU8(off) << 8) | outU8(off + 1); }

    @Override
    public long outU32(int off) { return dataOut.getInt(dataOutStart + off) & 0xFFFF_FFFFL; }

    @Override
    public long outS64(int off) { return dataOut.getLong(dataOutStart + off); }

    @Override
    public ByteBuffer dataOutWindow(int off, int len) {
        dataOut.limit(dataOutStart + off + len).position(dataOutStart + off);
        return dataOut;
    }

    @Override
    public void restoreDataOut() {
        dataOut.limit(dataOut.capacity()).position(dataOutStart);
    }

    @Override
    public void copyDataOut(int off, byte[] dst, int dstOff, int len) {
        dataOut.get(dataOutStart + off, dst, dstOff, len);
    }

    @Override
    public ByteBuffer dataInBuffer(int capacity) {
        ByteBuffer b = buffers.in(capacity);
        outcome.dataIn(b, capacity);
        return b;
    }

    @Override
    public void retireDataInBuffer() {
        buffers.retireIn();
        outcome.dataIn(null, 0);
    }

    @Override
    public void dataInLength(int length) { outcome.dataInLength(length); }

    @Override
    public int respond(byte[] src, int fullLength) {
        int n = (int) Math.min(fullLength, Math.min(cdbTransferLength, src.length));
        dataInBuffer(Math.max(n, 0)).put(0, src, 0, Math.max(n, 0));
        outcome.dataInLength(fullLength);
        return CommandDescriptor.DONE;
    }

    @Override
    public byte[] scratch(int size) { return buffers.scratch(size); }

    @Override
    public int fail(SenseReason r) {
        outcome.fail(r);
        return CommandDescriptor.DONE;
    }

    @Override
    public int failCdbField(int byteOffset, int bit) {
        outcome.failField(SenseReason.INVALID_FIELD_IN_CDB, true, byteOffset, bit);
        return CommandDescriptor.DONE;
    }

    @Override
    public int failParameterField(int byteOffset, int bit) {
        outcome.failField(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, false, byteOffset, bit);
        return CommandDescriptor.DONE;
    }

    @Override
    public int failWithProgress(SenseReason r, int progress) {
        outcome.failWithProgress(r, progress);
        return CommandDescriptor.DONE;
    }

    @Override
    public int failWithInformation(SenseReason r, long info) {
        outcome.failWithInformation(r, info);
        return CommandDescriptor.DONE;
    }

    @Override
    public int failUnitAttention(int ascAscq) {
        outcome.failUnitAttention(ascAscq);
        return CommandDescriptor.DONE;
    }

    @Override
    public void conditionMet() { outcome.status = ScsiStatus.CONDITION_MET; }

    @Override
    public boolean failed() { return outcome.reason != null; }

    @Override
    public void complete() { session.pipeline().complete(this); }

    @Override
    public Background background() { return session.registry().background(); }

    @Override
    public int supportedTaskManagement() { return session.pipeline().supportedTaskManagement(); }

    @Override
    public void abortTasksOf(Set<? extends ItNexus> nexuses, Runnable then) {
        Device dev = device;
        session.pipeline().aborts().abort(session, c -> c.device == dev && nexuses.contains(c.session), this,
                null, then, () -> { });
    }

    /** The Data-Out did not fit the CDB: this residual stands whatever the outcome (see {@link Outcome#finish}). */
    void dataOutMismatch(long wanted, long expected) {
        outcome.dataOutMismatch = true;
        outcome.residual(wanted, expected);
    }

    boolean markPrepared() { return STATE.compareAndSet(this, FREE, PREPARED); }

    void resetForUse() {
        outcome.reset();
        gateIndex = 0;
        gatesPassed = 0;
        aborted = false;
        responseSuppressed = false;
        orderingState = 0;
        parkedNext = null;
        sharedWrite = null;
        cdbTransferLength = 0;
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

    @Override
    public boolean abortRequested() { return (abortWord & ABORT_REQUESTED) != 0; }

    @Override
    public SharedAccess sharedWrite() { return sharedWrite; }

    @Override
    public void sharedWrite(SharedAccess s) { sharedWrite = s; }

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
        outcome.fail(SenseReason.TASK_ABORTED);
        outcome.dataIn = null;
    }

    /** Turns the outcome into status, sense bytes, the Data-In length to send and the residual. */
    void finish(boolean descriptorSense) {
        outcome.finish(descriptorSense, descriptor, cdbTransferLength, expectedDataInLength(), expectedDataOutLength());
    }

    /** A readable summary for logs and test failures (not for the fast path). */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("CoreCommand[tag=").append(tag).append(" cdb=");
        for (int i = 0; i < Math.min(cdbLength, 16); i++) {
            sb.append(String.format("%02x", cdb[i]));
        }
        sb.append(" status=").append(ScsiStatus.name(outcome.status));
        if (outcome.reason != null) {
            sb.append(' ').append(outcome.reason);
        }
        return sb.append(']').toString();
    }
}
