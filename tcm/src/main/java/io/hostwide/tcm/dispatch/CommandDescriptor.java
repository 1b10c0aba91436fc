package io.hostwide.tcm.dispatch;

/**
 * One row of a device type's command table (as tgt's per-device ops table): how to recognise, size, check and
 * execute a command, plus what REPORT SUPPORTED OPERATION CODES reports about it (SPC-4 §6.35).
 *
 * @param opcode             operation code
 * @param serviceAction      service action, or -1 for commands without one
 * @param name               spec name, for dumps
 * @param cdbLength          CDB length
 * @param direction          {@link #NO_DATA}, {@link #DATA_IN} or {@link #DATA_OUT}
 * @param usage              CDB USAGE DATA (SPC-4 §6.35.3): byte 0 the opcode, then a bit set for every bit the
 *                           device server examines; any other bit set in a CDB is reserved → INVALID FIELD IN CDB
 * @param transferLength     the data the CDB implies
 * @param flags              {@link #UA_EXEMPT}, {@link #HEAD_OF_QUEUE}, {@link #MEDIUM_ACCESS}, {@link #WRITES_MEDIUM}...
 * @param reservation        reservation-conflict rule
 * @param aluaAllowed        states besides active/optimized and active/non-optimized in which the command runs:
 *                           {@link #ALUA_STANDBY} | {@link #ALUA_UNAVAILABLE} | {@link #ALUA_TRANSITIONING}
 * @param nominalTimeout     seconds (command timeouts descriptor, SPC-4 §6.35.4); 0 = not specified
 * @param recommendedTimeout seconds
 * @param handler            executes it
 */
public record CommandDescriptor(int opcode, int serviceAction, String name, int cdbLength, int direction,
                                byte[] usage, TransferLength transferLength, int flags, ReservationRule reservation,
                                int aluaAllowed, int nominalTimeout, int recommendedTimeout, CommandHandler handler) {

    /** Handler outcome: the command's result is set; the core completes it. */
    public static final int DONE = 0;
    /** Handler outcome: the handler completes the command itself, later, through {@link Command#complete()}. */
    public static final int ASYNC = 1;
    /**
     * Handler outcome, only while {@link Command#nowait()}: the command cannot finish without blocking; nothing of
     * its outcome is set, and the core runs the handler again on the device's I/O queue.
     */
    public static final int WOULD_BLOCK = 2;

    public static final int NO_DATA = 0;
    public static final int DATA_IN = 1;
    public static final int DATA_OUT = 2;

    /** Never fails with a pending unit attention (INQUIRY, REPORT LUNS, REQUEST SENSE; SAM-5 §5.14). */
    public static final int UA_EXEMPT = 1;
    /** Runs as HEAD OF QUEUE whatever the transport says (INQUIRY, REPORT LUNS; digest §6.2). */
    public static final int HEAD_OF_QUEUE = 1 << 1;
    /** Needs the medium present and the unit started (NOT READY otherwise). */
    public static final int MEDIUM_ACCESS = 1 << 2;
    /** Calls the backstore: runs on the device's I/O queue when the backstore blocks. */
    public static final int BACKSTORE_IO = 1 << 6;
    /**
     * The expected Data-Out length must equal what the CDB implies (WRITE SAME: exactly one block; COMPARE AND
     * WRITE: exactly twice the blocks); anything else is INVALID FIELD IN CDB.
     */
    public static final int EXACT_DATA_OUT = 1 << 7;
    /**
     * A block transfer that may ask for more Data-Out than the initiator expects: when the expected length is whole
     * blocks, the command runs on those blocks only and reports the overflow residual (RFC 7143 §11.4.5.2, FCP-4
     * §9.4.2 "data beyond FCP_DL shall not be requested or transferred"; libiscsi iSCSIResiduals.Write*Residuals).
     */
    public static final int TRUNCATABLE_DATA_OUT = 1 << 8;
    /**
     * With {@link #BACKSTORE_IO}: on a blocking backstore that {@linkplain io.hostwide.tcm.spi.Backstore#readsNow
     * reads without blocking when it can} (a Data-In command) or {@linkplain io.hostwide.tcm.spi.Backstore#writesNow
     * writes so} (a Data-Out command, whose data is all in hand when the core sees it), the core first runs the
     * handler on the submitting thread with {@link Command#nowait()} true, and queues it only if it answers
     * {@link #WOULD_BLOCK}: a read served from the page cache, or a write to a tmpfs page, then costs no hand-off to
     * an I/O thread and back. Task attributes, reservations and ALUA are checked before either, as for any command.
     */
    public static final int TRY_NOWAIT = 1 << 9;
    /**
     * On an {@link io.hostwide.tcm.spi.AsyncBackstore} the handler submits there and returns {@link #ASYNC}: it runs
     * on the thread that submitted the command instead of the device's I/O queue (READ, WRITE, SYNCHRONIZE CACHE).
     */
    public static final int ASYNC_BACKSTORE_IO = 1 << 10;
    /** Modifies the medium: fails with DATA PROTECT on write-protected devices or read-only mappings. */
    public static final int WRITES_MEDIUM = 1 << 3;
    /** Allowed on a LUN the nexus does not have mapped (INQUIRY, REPORT LUNS, REQUEST SENSE; SPC-4 §4.3). */
    public static final int NO_LUN_OK = 1 << 4;
    /** The service action is in bytes 8..9 (variable-length CDB) instead of byte 1 bits 4..0. */
    public static final int SA_16BIT = 1 << 5;

    public static final int ALUA_STANDBY = 1;
    public static final int ALUA_UNAVAILABLE = 1 << 1;
    public static final int ALUA_TRANSITIONING = 1 << 2;

    public boolean has(int flag) { return (flags & flag) != 0; }

    public boolean hasServiceAction() { return serviceAction >= 0; }
}
