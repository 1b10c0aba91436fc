package io.hostwide.tcm.lu;

/** SPC-4 §6.16.3 Table 172: persistent reservation types, and the scope this core implements. */
public final class PrType {
    private PrType() {}

    public static final int WRITE_EXCLUSIVE = 0x1;
    public static final int EXCLUSIVE_ACCESS = 0x3;
    public static final int WRITE_EXCLUSIVE_REGISTRANTS_ONLY = 0x5;
    public static final int EXCLUSIVE_ACCESS_REGISTRANTS_ONLY = 0x6;
    public static final int WRITE_EXCLUSIVE_ALL_REGISTRANTS = 0x7;
    public static final int EXCLUSIVE_ACCESS_ALL_REGISTRANTS = 0x8;

    /** LU_SCOPE, the only scope SPC-4 keeps (element scope is obsolete). */
    public static final int LU_SCOPE = 0x0;

    public static boolean valid(int type) {
        return type == WRITE_EXCLUSIVE || type == EXCLUSIVE_ACCESS || (type >= 5 && type <= 8);
    }

    public static boolean registrantsOnly(int type) {
        return type == WRITE_EXCLUSIVE_REGISTRANTS_ONLY || type == EXCLUSIVE_ACCESS_REGISTRANTS_ONLY;
    }

    public static boolean allRegistrants(int type) {
        return type == WRITE_EXCLUSIVE_ALL_REGISTRANTS || type == EXCLUSIVE_ACCESS_ALL_REGISTRANTS;
    }

    /** Write Exclusive family: reads from anyone pass. */
    public static boolean writeExclusive(int type) {
        return type == WRITE_EXCLUSIVE || type == WRITE_EXCLUSIVE_REGISTRANTS_ONLY
                || type == WRITE_EXCLUSIVE_ALL_REGISTRANTS;
    }

    /** REPORT CAPABILITIES PERSISTENT RESERVATION TYPE MASK (SPC-4 §6.15.4): all six types. */
    public static final int TYPE_MASK = 0xEA01;
}
