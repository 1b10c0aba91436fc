package io.hostwide.scsi.spec;

/** Service action codes, grouped by the operation code that carries them (SPC-4 Annex D.3.2..D.3.4, SBC-4). */
public final class ServiceAction {
    private ServiceAction() {}

    /** Service action field location for the opcodes that have one: byte 1, bits 4..0 (SPC-4 §4.2.5). */
    public static final int MASK_5BIT = 0x1F;

    // SERVICE ACTION IN(16), 9Eh (SBC-4 §5.20, §5.8)
    public static final int READ_CAPACITY_16 = 0x10;
    public static final int GET_LBA_STATUS = 0x12;
    public static final int REPORT_REFERRALS = 0x13;
    public static final int REPORT_PROVISIONING_INITIALIZATION_PATTERN = 0x1D;

    // MAINTENANCE IN, A3h (SPC-4 §6.x)
    public static final int REPORT_IDENTIFYING_INFORMATION = 0x05;
    public static final int REPORT_TARGET_PORT_GROUPS = 0x0A;
    public static final int REPORT_ALIASES = 0x0B;
    public static final int REPORT_SUPPORTED_OPERATION_CODES = 0x0C;
    public static final int REPORT_SUPPORTED_TASK_MANAGEMENT_FUNCTIONS = 0x0D;
    public static final int REPORT_PRIORITY = 0x0E;
    public static final int REPORT_TIMESTAMP = 0x0F;

    // MAINTENANCE OUT, A4h
    public static final int SET_TARGET_PORT_GROUPS = 0x0A;
    public static final int SET_TIMESTAMP = 0x0F;

    // SANITIZE, 48h (SBC-4 §5.30)
    public static final int SANITIZE_OVERWRITE = 0x01;
    public static final int SANITIZE_BLOCK_ERASE = 0x02;
    public static final int SANITIZE_CRYPTOGRAPHIC_ERASE = 0x03;
    public static final int SANITIZE_EXIT_FAILURE_MODE = 0x1F;

    // PERSISTENT RESERVE IN, 5Eh (SPC-4 §6.15)
    public static final int PRIN_READ_KEYS = 0x00;
    public static final int PRIN_READ_RESERVATION = 0x01;
    public static final int PRIN_REPORT_CAPABILITIES = 0x02;
    public static final int PRIN_READ_FULL_STATUS = 0x03;

    // PERSISTENT RESERVE OUT, 5Fh (SPC-4 §6.16)
    public static final int PROUT_REGISTER = 0x00;
    public static final int PROUT_RESERVE = 0x01;
    public static final int PROUT_RELEASE = 0x02;
    public static final int PROUT_CLEAR = 0x03;
    public static final int PROUT_PREEMPT = 0x04;
    public static final int PROUT_PREEMPT_AND_ABORT = 0x05;
    public static final int PROUT_REGISTER_AND_IGNORE_EXISTING_KEY = 0x06;
    public static final int PROUT_REGISTER_AND_MOVE = 0x07;
    public static final int PROUT_REPLACE_LOST_RESERVATION = 0x08;

    // EXTENDED COPY 83h / RECEIVE COPY RESULTS 84h (SPC-4 §6.4, §6.18)
    public static final int XCOPY_LID1 = 0x00;
    public static final int XCOPY_LID4 = 0x01;
    public static final int RCR_COPY_STATUS = 0x00;
    public static final int RCR_RECEIVE_DATA = 0x01;
    public static final int RCR_OPERATING_PARAMETERS = 0x03;
    public static final int RCR_FAILED_SEGMENT_DETAILS = 0x04;

    // VARIABLE LENGTH 7Fh, 16-bit service action at bytes 8..9 (SBC-4 §5.x)
    public static final int READ_32 = 0x0009;
    public static final int VERIFY_32 = 0x000A;
    public static final int WRITE_32 = 0x000B;
    public static final int WRITE_AND_VERIFY_32 = 0x000C;
    public static final int WRITE_SAME_32 = 0x000D;
    public static final int ORWRITE_32 = 0x000E;
}
