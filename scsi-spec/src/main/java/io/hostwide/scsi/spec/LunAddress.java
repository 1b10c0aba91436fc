package io.hostwide.scsi.spec;

/**
 * SAM-5 §4.7 eight-byte LUN structure, carried as a long (byte 0 of the wire form in bits 63..56).
 * Single-level addressing only: peripheral device addressing (00b, LUN 0..255), flat space addressing
 * (01b, LUN 0..16383), and well-known LUNs (C1h, §4.7.7.2: 01h = REPORT LUNS). Further levels must be zero.
 */
public final class LunAddress {
    private LunAddress() {}

    public static final int METHOD_PERIPHERAL = 0;
    public static final int METHOD_FLAT = 1;
    public static final int WELL_KNOWN_PREFIX = 0xC1;
    /** REPORT LUNS well-known logical unit, 0xC101 in the first two bytes (SAM-5 §4.7.7.2 Table 15). */
    public static final int WLUN_REPORT_LUNS = 0xC101;
    /** {@link #decode(long)} result for the REPORT LUNS well-known LUN. */
    public static final int DECODED_WLUN_REPORT_LUNS = 0x1_C101;
    /** {@link #decode(long)} result for a LUN structure this target does not address. */
    public static final int UNSUPPORTED = -1;
    public static final int MAX_FLAT_LUN = 0x3FFF;

    /** @return the LUN number, {@link #DECODED_WLUN_REPORT_LUNS}, or {@link #UNSUPPORTED}. */
    public static int decode(long lun) {
        if ((lun & 0x0000_FFFF_FFFF_FFFFL) != 0) {
            return UNSUPPORTED;
        }
        int first = (int) (lun >>> 48) & 0xFFFF;
        int method = first >>> 14;
        if (method == METHOD_PERIPHERAL) {
            return (first & 0x3F00) == 0 ? first & 0xFF : UNSUPPORTED; // bus identifier 0 only
        }
        if (method == METHOD_FLAT) {
            return first & MAX_FLAT_LUN;
        }
        return first == WLUN_REPORT_LUNS ? DECODED_WLUN_REPORT_LUNS : UNSUPPORTED;
    }

    /** Encodes LUN 0..255 with peripheral device addressing and 256..16383 with flat space addressing. */
    public static long encode(int lun) {
        if (lun < 0 || lun > MAX_FLAT_LUN) {
            throw new IllegalArgumentException("LUN out of the single-level range: " + lun);
        }
        int first = lun < 256 ? lun : (METHOD_FLAT << 14) | lun;
        return (long) first << 48;
    }

    public static long encodeWellKnown(int wlun) { return (long) (wlun & 0xFFFF) << 48; }
}
