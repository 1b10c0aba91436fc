package io.hostwide.iscsi.spec;

/** The small code sets of RFC 7143 that need no type of their own. */
public final class Codes {
    private Codes() {}

    /** SCSI Response "Response" field, RFC 7143 §11.4.3. */
    public static final int COMMAND_COMPLETED_AT_TARGET = 0x00;
    public static final int TARGET_FAILURE = 0x01;

    /** Logout reason codes, RFC 7143 §11.14.1. */
    public static final int LOGOUT_CLOSE_SESSION = 0;
    public static final int LOGOUT_CLOSE_CONNECTION = 1;
    public static final int LOGOUT_REMOVE_CONNECTION_FOR_RECOVERY = 2;

    /** Logout response codes, RFC 7143 §11.15.1. */
    public static final int LOGOUT_CLOSED_SUCCESSFULLY = 0;
    public static final int LOGOUT_CID_NOT_FOUND = 1;
    public static final int LOGOUT_RECOVERY_NOT_SUPPORTED = 2;
    public static final int LOGOUT_CLEANUP_FAILED = 3;

    /** SNACK types, RFC 7143 §11.16.1. */
    public static final int SNACK_DATA_R2T = 0;
    public static final int SNACK_STATUS = 1;
    public static final int SNACK_DATA_ACK = 2;
    public static final int SNACK_R_DATA = 3;

    /** AHS types, RFC 7143 §11.2.2.2. */
    public static final int AHS_EXTENDED_CDB = 1;
    public static final int AHS_BIDIRECTIONAL_READ_LENGTH = 2;

    /** Login stages (CSG/NSG), RFC 7143 §11.12.3. */
    public static final int STAGE_SECURITY_NEGOTIATION = 0;
    public static final int STAGE_LOGIN_OPERATIONAL_NEGOTIATION = 1;
    public static final int STAGE_FULL_FEATURE_PHASE = 3;

    /** The only version RFC 7143 defines, §11.12.4. */
    public static final int VERSION = 0x00;

    /** The reserved tag value, RFC 7143 §11.18.2/§11.19.2. */
    public static final int RESERVED_TAG = 0xffff_ffff;

    /** The digest length of CRC32C, RFC 7143 §13.1. */
    public static final int DIGEST_LENGTH = 4;
}
