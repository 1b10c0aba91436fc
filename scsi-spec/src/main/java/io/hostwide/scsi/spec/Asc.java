package io.hostwide.scsi.spec;

/**
 * Additional sense code / qualifier pairs (SPC-4 Annex D.2, Table D.1), as one int: ASC in bits 15..8, ASCQ in
 * bits 7..0. {@link #asc(int)} and {@link #ascq(int)} split them.
 */
public final class Asc {
    private Asc() {}

    public static int asc(int ascAscq) { return ascAscq >>> 8 & 0xFF; }

    public static int ascq(int ascAscq) { return ascAscq & 0xFF; }

    public static int of(int asc, int ascq) { return (asc & 0xFF) << 8 | (ascq & 0xFF); }

    public static final int NO_ADDITIONAL_SENSE_INFORMATION = 0x0000;
    public static final int LOGICAL_UNIT_NOT_READY_CAUSE_NOT_REPORTABLE = 0x0400;
    public static final int LOGICAL_UNIT_NOT_READY_INITIALIZING_COMMAND_REQUIRED = 0x0402;
    public static final int LOGICAL_UNIT_NOT_READY_MANUAL_INTERVENTION_REQUIRED = 0x0403;
    public static final int LOGICAL_UNIT_NOT_READY_FORMAT_IN_PROGRESS = 0x0404;
    public static final int LOGICAL_UNIT_NOT_READY_ASYMMETRIC_ACCESS_STATE_TRANSITION = 0x040A;
    public static final int LOGICAL_UNIT_NOT_READY_TARGET_PORT_IN_STANDBY_STATE = 0x040B;
    public static final int LOGICAL_UNIT_NOT_READY_TARGET_PORT_IN_UNAVAILABLE_STATE = 0x040C;
    public static final int LOGICAL_UNIT_NOT_READY_OFFLINE = 0x0412;
    public static final int LOGICAL_UNIT_NOT_READY_SANITIZE_IN_PROGRESS = 0x041B;
    public static final int LOGICAL_UNIT_COMMUNICATION_FAILURE = 0x0800;
    public static final int WRITE_ERROR = 0x0C00;
    public static final int INVALID_FIELD_IN_INFORMATION_UNIT = 0x0E03;
    public static final int UNRECOVERED_READ_ERROR = 0x1100;
    public static final int MISCOMPARE_DURING_VERIFY_OPERATION = 0x1D00;
    public static final int PARAMETER_LIST_LENGTH_ERROR = 0x1A00;
    public static final int INVALID_COMMAND_OPERATION_CODE = 0x2000;
    public static final int ACCESS_DENIED_NO_ACCESS_RIGHTS = 0x2002;
    public static final int LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE = 0x2100;
    public static final int INVALID_FIELD_IN_CDB = 0x2400;
    public static final int LOGICAL_UNIT_NOT_SUPPORTED = 0x2500;
    public static final int INVALID_FIELD_IN_PARAMETER_LIST = 0x2600;
    public static final int PARAMETER_NOT_SUPPORTED = 0x2601;
    public static final int PARAMETER_VALUE_INVALID = 0x2602;
    public static final int WRITE_PROTECTED = 0x2700;
    public static final int HARDWARE_WRITE_PROTECTED = 0x2701;
    public static final int SOFTWARE_WRITE_PROTECTED = 0x2702;
    /** SBC-4 §4.7.3.6: a thin LU could not allocate the blocks a write needs. */
    public static final int SPACE_ALLOCATION_FAILED_WRITE_PROTECT = 0x2707;
    public static final int POWER_ON_RESET_OR_BUS_DEVICE_RESET_OCCURRED = 0x2900;
    public static final int POWER_ON_OCCURRED = 0x2901;
    public static final int BUS_DEVICE_RESET_FUNCTION_OCCURRED = 0x2903;
    public static final int I_T_NEXUS_LOSS_OCCURRED = 0x2907;
    public static final int PARAMETERS_CHANGED = 0x2A00;
    public static final int MODE_PARAMETERS_CHANGED = 0x2A01;
    public static final int RESERVATIONS_PREEMPTED = 0x2A03;
    public static final int RESERVATIONS_RELEASED = 0x2A04;
    public static final int REGISTRATIONS_PREEMPTED = 0x2A05;
    public static final int ASYMMETRIC_ACCESS_STATE_CHANGED = 0x2A06;
    public static final int CAPACITY_DATA_HAS_CHANGED = 0x2A09;
    public static final int COMMANDS_CLEARED_BY_ANOTHER_INITIATOR = 0x2F00;
    public static final int SAVING_PARAMETERS_NOT_SUPPORTED = 0x3900;
    public static final int MEDIUM_NOT_PRESENT = 0x3A00;
    public static final int MEDIUM_NOT_PRESENT_TRAY_CLOSED = 0x3A01;
    public static final int MEDIUM_NOT_PRESENT_TRAY_OPEN = 0x3A02;
    public static final int INQUIRY_DATA_HAS_CHANGED = 0x3F03;
    public static final int REPORTED_LUNS_DATA_HAS_CHANGED = 0x3F0E;
    public static final int INTERNAL_TARGET_FAILURE = 0x4400;
    public static final int MEDIUM_REMOVAL_PREVENTED = 0x5302;
    public static final int INSUFFICIENT_RESOURCES = 0x5503;
    public static final int INSUFFICIENT_REGISTRATION_RESOURCES = 0x5504;
    public static final int INVALID_MESSAGE_ERROR = 0x4900;
    public static final int LOW_POWER_CONDITION_ON = 0x5E00;
    public static final int COPY_TARGET_DEVICE_NOT_REACHABLE = 0x0D02;
    public static final int UNREACHABLE_COPY_TARGET = 0x0804;
    public static final int TOO_MANY_TARGET_DESCRIPTORS = 0x2606;
    public static final int UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE = 0x2607;
    public static final int TOO_MANY_SEGMENT_DESCRIPTORS = 0x2608;
    public static final int UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE_CODE = 0x2609;
    public static final int SANITIZE_COMMAND_FAILED = 0x3103;
    public static final int MEDIUM_FORMAT_CORRUPTED = 0x3100;
    /** SPC-4 §6.40: a SET TARGET PORT GROUPS transition failed before it completed (with HARDWARE ERROR). */
    public static final int SET_TARGET_PORT_GROUPS_COMMAND_FAILED = 0x670A;
}
