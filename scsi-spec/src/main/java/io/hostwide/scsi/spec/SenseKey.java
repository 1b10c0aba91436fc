package io.hostwide.scsi.spec;

/** SPC-4 §4.5.6 Table 48: sense keys. */
public final class SenseKey {
    private SenseKey() {}

    public static final int NO_SENSE = 0x0;
    public static final int RECOVERED_ERROR = 0x1;
    public static final int NOT_READY = 0x2;
    public static final int MEDIUM_ERROR = 0x3;
    public static final int HARDWARE_ERROR = 0x4;
    public static final int ILLEGAL_REQUEST = 0x5;
    public static final int UNIT_ATTENTION = 0x6;
    public static final int DATA_PROTECT = 0x7;
    public static final int BLANK_CHECK = 0x8;
    public static final int VENDOR_SPECIFIC = 0x9;
    public static final int COPY_ABORTED = 0xA;
    public static final int ABORTED_COMMAND = 0xB;
    public static final int VOLUME_OVERFLOW = 0xD;
    public static final int MISCOMPARE = 0xE;
    public static final int COMPLETED = 0xF;

    private static final String[] NAMES = {"NO SENSE", "RECOVERED ERROR", "NOT READY", "MEDIUM ERROR",
        "HARDWARE ERROR", "ILLEGAL REQUEST", "UNIT ATTENTION", "DATA PROTECT", "BLANK CHECK", "VENDOR SPECIFIC",
        "COPY ABORTED", "ABORTED COMMAND", "RESERVED", "VOLUME OVERFLOW", "MISCOMPARE", "COMPLETED"};

    /** The spec's name of a sense key ({@code "ILLEGAL REQUEST"}), or its number for an out-of-range value. */
    public static String name(int key) {
        return key >= 0 && key < NAMES.length ? NAMES[key] : "0x" + Integer.toHexString(key);
    }
}
