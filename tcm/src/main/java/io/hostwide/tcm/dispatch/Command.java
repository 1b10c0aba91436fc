package io.hostwide.tcm.dispatch;

import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.ItNexus;
import io.hostwide.tcm.lu.SessionLun;
import io.hostwide.tcm.lu.SharedAccess;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spi.Background;
import io.hostwide.tcm.spi.SenseReason;

import java.nio.ByteBuffer;
import java.util.Set;

/**
 * A command as its handler and the gates see it (LIO's se_cmd as the emulation code uses it): the CDB, where it is
 * going, its Data-Out, a place for its Data-In, and the ways to end it. The core implements it; a handler never
 * sees the fabric's side of the command (setup, buffers, release) or the core's (pool, abort word, gate state).
 *
 * <p>A handler returns {@link CommandDescriptor#DONE} once the outcome is set (GOOD, optionally with Data-In, or a
 * failure through one of the {@code fail} methods, each of which returns {@code DONE} for a handler's
 * {@code return}); the core then completes it. A handler that finishes later returns
 * {@link CommandDescriptor#ASYNC} and calls {@link #complete()} exactly once, from any thread.
 */
public interface Command {

    // --- what the command says -------------------------------------------------------------------------------

    byte[] cdb();

    int cdbLength();

    int opcode();

    /** The 8-byte SAM LUN as a long, as the fabric handed it in. */
    long lun();

    TaskAttribute taskAttribute();

    /** Data implied by the CDB in bytes (transfer length × block size, allocation or parameter list length). */
    long cdbTransferLength();

    // --- where it goes ----------------------------------------------------------------------------------------

    /** The I_T nexus the command came from. */
    ItNexus nexus();

    /** The target port it came in through. */
    TargetPort targetPort();

    /** The logical unit as this nexus sees it, or null when the LUN is not mapped (INQUIRY, REPORT LUNS...). */
    SessionLun sessionLun();

    /** The logical unit, or null when the LUN is not mapped. */
    Device device();

    /** The table row the command was dispatched through. */
    CommandDescriptor descriptor();

    /**
     * True while the core tries a {@link CommandDescriptor#TRY_NOWAIT} command on the submitting thread before
     * queueing it for a blocking backstore: the handler must not block (it calls
     * {@link io.hostwide.tcm.spi.Backstore#tryReadNow} or {@code tryWriteNow} rather than {@code read} or
     * {@code write}) and returns
     * {@link CommandDescriptor#WOULD_BLOCK}, having set no outcome, when it cannot finish so. False otherwise.
     */
    boolean nowait();

    /** The command table of the logical unit (REPORT SUPPORTED OPERATION CODES reports it). */
    CommandTable commandTable();

    // --- Data-Out ---------------------------------------------------------------------------------------------

    /** Number of Data-Out bytes available to the handler (never more than the CDB implies). */
    int dataOutLength();

    int outU8(int off);

    int outU16(int off);

    long outU32(int off);

    long outS64(int off);

    /** Data-Out bytes [off, off+len) as the buffer's position..limit; restore with {@link #restoreDataOut()}. */
    ByteBuffer dataOutWindow(int off, int len);

    void restoreDataOut();

    /** Copies Data-Out bytes into {@code dst}. */
    void copyDataOut(int off, byte[] dst, int dstOff, int len);

    // --- Data-In ----------------------------------------------------------------------------------------------

    /** A pooled Data-In buffer with room for {@code capacity} bytes: position 0, limit capacity. */
    ByteBuffer dataInBuffer(int capacity);

    /**
     * Gives up the buffer {@link #dataInBuffer} returned: an asynchronous backstore may still write into it (see
     * {@link io.hostwide.tcm.spi.BackstoreStatusException#dstRetained()}), so the command never reuses or pools it
     * and takes a new one next time. Nothing of it is sent.
     */
    void retireDataInBuffer();

    /** Declares the full length of the response the handler produced in {@link #dataInBuffer}. */
    void dataInLength(int length);

    /** Copies a response built in a byte array into the Data-In buffer; returns {@link CommandDescriptor#DONE}. */
    int respond(byte[] src, int fullLength);

    /** A zeroed scratch array of at least {@code size} bytes, reused across the pool cycle. */
    byte[] scratch(int size);

    // --- outcome ----------------------------------------------------------------------------------------------

    /** Fails the command; returns {@link CommandDescriptor#DONE}. */
    int fail(SenseReason r);

    /** INVALID FIELD IN CDB with a field pointer to byte {@code byteOffset} (bit {@code bit}, or -1 for none). */
    int failCdbField(int byteOffset, int bit);

    /** INVALID FIELD IN PARAMETER LIST with a field pointer into the parameter data. */
    int failParameterField(int byteOffset, int bit);

    /**
     * A failure whose sense-key-specific field is a PROGRESS INDICATION (SPC-4 §4.4.2.4.4): NOT READY while a
     * sanitize runs, with the fraction done in 65536ths.
     */
    int failWithProgress(SenseReason r, int progress);

    /** A failure whose INFORMATION field carries {@code info} (MISCOMPARE offset, failing LBA). */
    int failWithInformation(SenseReason r, long info);

    /** CHECK CONDITION / UNIT ATTENTION with the ASC/ASCQ of the queued condition. */
    int failUnitAttention(int ascAscq);

    /** Completes with CONDITION MET instead of GOOD (PRE-FETCH, SBC-4 §5.9). */
    void conditionMet();

    boolean failed();

    /** A task management function asked for this command to be aborted: a handler not yet started skips the work. */
    boolean abortRequested();

    /**
     * The policy of an LU shared by several gateways that admitted this write ({@link SharedAccess#admitsWrite}), for
     * the ALUA gate to tell it when the command completed; null otherwise. Set and read by the ALUA gate only.
     */
    SharedAccess sharedWrite();

    void sharedWrite(SharedAccess s);

    /** Completes a command whose handler returned {@link CommandDescriptor#ASYNC}; exactly once, any thread. */
    void complete();

    // --- what the core lends a handler --------------------------------------------------------------------------

    /** Where long operations run (sanitize chunks, ALUA transition delays), never on the fabric's thread. */
    Background background();

    /**
     * The task management functions the core implements, as REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS bytes 0
     * and 1 (SPC-4 §6.36): {@code byte0 << 8 | byte1}.
     */
    int supportedTaskManagement();

    /**
     * Aborts the tasks of {@code nexuses} on this command's logical unit, except this command (PREEMPT AND ABORT,
     * SPC-4 §5.13.11.4.5), and runs {@code then} once every one of them has completed.
     */
    void abortTasksOf(Set<? extends ItNexus> nexuses, Runnable then);
}
