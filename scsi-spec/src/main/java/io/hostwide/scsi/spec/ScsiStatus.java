package io.hostwide.scsi.spec;

/** SAM-5 §5.3 status codes. */
public final class ScsiStatus {
    private ScsiStatus() {}

    public static final int GOOD = 0x00;
    public static final int CHECK_CONDITION = 0x02;
    public static final int CONDITION_MET = 0x04;
    public static final int BUSY = 0x08;
    public static final int RESERVATION_CONFLICT = 0x18;
    public static final int TASK_SET_FULL = 0x28;
    public static final int ACA_ACTIVE = 0x30;
    public static final int TASK_ABORTED = 0x40;

    public static String name(int status) {
        return switch (status) {
            case GOOD -> "GOOD";
            case CHECK_CONDITION -> "CHECK CONDITION";
            case CONDITION_MET -> "CONDITION MET";
            case BUSY -> "BUSY";
            case RESERVATION_CONFLICT -> "RESERVATION CONFLICT";
            case TASK_SET_FULL -> "TASK SET FULL";
            case ACA_ACTIVE -> "ACA ACTIVE";
            case TASK_ABORTED -> "TASK ABORTED";
            default -> String.format("0x%02X", status);
        };
    }
}
