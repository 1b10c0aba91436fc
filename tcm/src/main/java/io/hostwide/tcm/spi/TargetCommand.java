package io.hostwide.tcm.spi;

import io.hostwide.scsi.spec.TaskAttribute;

import java.nio.ByteBuffer;

/**
 * One SCSI command as a fabric sees it: what the fabric hands in, and the results the core hands back. A fabric
 * takes one from its session's pool ({@code Session.newCommand()}), fills it with {@link #setup}, puts the Data-Out
 * bytes in (the transport collects all Data-Out — immediate, unsolicited and R2T-solicited — up to its expected
 * data transfer length <em>before</em> submitting), submits it, receives it back in
 * {@link Fabric#complete(TargetCommand)} and finally {@link #release()}s it. The fabric never sees the CDB's meaning
 * or the core's state of the command.
 *
 * <p>Residuals (SAM-5 §5.4.3, RFC 7143 §11.4.5): the core compares the data transfer length the CDB implies with
 * the expected length the transport announced. Data-In beyond the expected length is not transferred (overflow);
 * less data than expected is an underflow. A Data-Out command whose CDB asks for more than the expected length is
 * rejected with INVALID FIELD IN INFORMATION UNIT before any data changes (overflow residual set).
 *
 * <p>Thread contract: a command belongs to one thread at a time; the fabric publishes it to the thread that sends
 * the response, and the core publishes it back to the pool on {@link #release()}.
 */
public interface TargetCommand {

    /** Direction flags of the transport header (RFC 7143 §11.3.1 R and W bits); both set = bidirectional. */
    int DIR_NONE = 0;
    int DIR_READ = 1;
    int DIR_WRITE = 2;

    int RESIDUAL_NONE = 0;
    int RESIDUAL_OVERFLOW = 1;
    int RESIDUAL_UNDERFLOW = 2;

    /** SPC-4 §4.5.1: sense data is at most 252 bytes. */
    int MAX_SENSE_LENGTH = Sense.MAX_LENGTH;

    // --- what the fabric hands in -------------------------------------------------------------------------------

    /**
     * Fills the command. {@code cdbLength} may exceed the command's own length (iSCSI carries 16 bytes at least);
     * extended CDBs up to 260 bytes are accepted (RFC 7143 §11.2.2.3 AHS).
     *
     * @param lun            the 8-byte SAM LUN as a long (wire byte 0 in bits 63..56)
     * @param expectedLength expected data transfer length (for bidirectional: the Data-Out length)
     * @param directionFlags {@link #DIR_READ} | {@link #DIR_WRITE}
     */
    TargetCommand setup(long lun, byte[] cdbSrc, int cdbOffset, int cdbLength, TaskAttribute attribute, long tag,
                        int expectedLength, int directionFlags);

    /** RFC 7143 §11.2.2.4 Bidirectional Read Expected Data Transfer Length, when both direction flags are set. */
    TargetCommand bidiReadLength(int length);

    /**
     * A pooled buffer for the fabric to fill with Data-Out: position 0, limit {@code capacity}. Flip it (or set
     * position/limit) so that position..limit holds the received bytes before submitting.
     */
    ByteBuffer dataOutBuffer(int capacity);

    /** Uses the fabric's own buffer for Data-Out: bytes position..limit; must stay valid until completion. */
    TargetCommand dataOut(ByteBuffer data);

    /** Opaque per-command state of the fabric (e.g. its task record); kept across the pool cycle until reset. */
    TargetCommand fabricPrivate(Object o);

    Object fabricPrivate();

    /**
     * Returns the command to its session's pool. Call after the response has been sent (or instead of submitting a
     * command the fabric decided not to send).
     *
     * @throws IllegalStateException when released twice or before the core completed it (a fabric bug that would
     *                               otherwise hand one command to two users)
     */
    void release();

    long tag();

    /** The 8-byte SAM LUN as a long. */
    long lun();

    TaskAttribute taskAttribute();

    // --- results, valid in Fabric.complete ------------------------------------------------------------------------

    int status();

    byte[] senseBuffer();

    int senseLength();

    /** Data-In to transfer: position 0, limit = bytes to send (never more than the expected length). */
    ByteBuffer dataIn();

    int dataInSendLength();

    /** {@link #RESIDUAL_NONE}, {@link #RESIDUAL_OVERFLOW} or {@link #RESIDUAL_UNDERFLOW}. */
    int residualKind();

    int residualCount();

    /**
     * Whether a task management function aborted this command (valid in {@link Fabric#complete}). An aborted
     * command still reaches {@code Fabric.complete} exactly once: with status TASK ABORTED when it belonged to
     * another I_T nexus than the TMF's (TAS = 1, SAM-5 §7.1), otherwise with {@link #responseSuppressed()} set —
     * the fabric then sends nothing for it (RFC 7143 §11.5.1) and just releases it.
     */
    boolean aborted();

    /** The fabric must not send a response for this command (aborted from its own I_T nexus). */
    boolean responseSuppressed();

    /** The reason a command failed, or null when it completed with GOOD / CONDITION MET. */
    SenseReason reason();
}
