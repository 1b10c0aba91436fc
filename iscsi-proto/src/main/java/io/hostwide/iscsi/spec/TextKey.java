package io.hostwide.iscsi.spec;

/** Text key names and constant values, spelled as RFC 7143 §13 and §12 spell them. */
public final class TextKey {
    private TextKey() {}

    // RFC 7143 §13 login/text operational keys.
    public static final String HEADER_DIGEST = "HeaderDigest";
    public static final String DATA_DIGEST = "DataDigest";
    public static final String MAX_CONNECTIONS = "MaxConnections";
    public static final String SEND_TARGETS = "SendTargets";
    public static final String TARGET_NAME = "TargetName";
    public static final String INITIATOR_NAME = "InitiatorName";
    public static final String TARGET_ALIAS = "TargetAlias";
    public static final String INITIATOR_ALIAS = "InitiatorAlias";
    public static final String TARGET_ADDRESS = "TargetAddress";
    public static final String TARGET_PORTAL_GROUP_TAG = "TargetPortalGroupTag";
    public static final String INITIAL_R2T = "InitialR2T";
    public static final String IMMEDIATE_DATA = "ImmediateData";
    public static final String MAX_RECV_DATA_SEGMENT_LENGTH = "MaxRecvDataSegmentLength";
    public static final String MAX_BURST_LENGTH = "MaxBurstLength";
    public static final String FIRST_BURST_LENGTH = "FirstBurstLength";
    public static final String DEFAULT_TIME2WAIT = "DefaultTime2Wait";
    public static final String DEFAULT_TIME2RETAIN = "DefaultTime2Retain";
    public static final String MAX_OUTSTANDING_R2T = "MaxOutstandingR2T";
    public static final String DATA_PDU_IN_ORDER = "DataPDUInOrder";
    public static final String DATA_SEQUENCE_IN_ORDER = "DataSequenceInOrder";
    public static final String ERROR_RECOVERY_LEVEL = "ErrorRecoveryLevel";
    public static final String SESSION_TYPE = "SessionType";
    public static final String TASK_REPORTING = "TaskReporting";
    /** RFC 7144 §2.1. */
    public static final String ISCSI_PROTOCOL_LEVEL = "iSCSIProtocolLevel";
    /** Obsoleted by RFC 7143 §13.26. */
    public static final String IF_MARKER = "IFMarker";
    public static final String OF_MARKER = "OFMarker";
    public static final String IF_MARK_INT = "IFMarkInt";
    public static final String OF_MARK_INT = "OFMarkInt";

    // RFC 7143 §12 security keys.
    public static final String AUTH_METHOD = "AuthMethod";
    public static final String CHAP_A = "CHAP_A";
    public static final String CHAP_I = "CHAP_I";
    public static final String CHAP_C = "CHAP_C";
    public static final String CHAP_N = "CHAP_N";
    public static final String CHAP_R = "CHAP_R";

    // Constant values, RFC 7143 §6.1, §6.2, §13.
    public static final String YES = "Yes";
    public static final String NO = "No";
    public static final String NONE = "None";
    public static final String CRC32C = "CRC32C";
    public static final String CHAP = "CHAP";
    public static final String ALL = "All";
    public static final String DISCOVERY = "Discovery";
    public static final String NORMAL = "Normal";
    public static final String REJECT = "Reject";
    public static final String IRRELEVANT = "Irrelevant";
    public static final String NOT_UNDERSTOOD = "NotUnderstood";

    /** Prefixes of private ("X-") and IANA-registered public extension ("X#") keys, RFC 7143 §6.1 and §13. */
    public static final String PRIVATE_PREFIX = "X-";
    public static final String PUBLIC_EXTENSION_PREFIX = "X#";

    /** Key names are at most 63 bytes, RFC 7143 §6.1. */
    public static final int MAX_KEY_LENGTH = 63;
    /** A text value is at most 255 bytes, except where a key allows longer; RFC 7143 §6.1. */
    public static final int MAX_SIMPLE_VALUE_LENGTH = 255;
    /** The longest binary or list value, RFC 7143 §6.1 (8192 bytes). */
    public static final int MAX_VALUE_LENGTH = 8192;
    /** iSCSI names are at most 223 bytes, RFC 7143 §4.2.7.1. */
    public static final int MAX_ISCSI_NAME_LENGTH = 223;

    /** CHAP algorithm identifiers, IANA "PPP Authentication Algorithms" (as in Linux iscsi_target_auth.h). */
    public static final int CHAP_MD5 = 5;
    public static final int CHAP_SHA1 = 6;
    public static final int CHAP_SHA256 = 7;
    public static final int CHAP_SHA3_256 = 8;
}
