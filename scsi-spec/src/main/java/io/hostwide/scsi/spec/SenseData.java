package io.hostwide.scsi.spec;

/**
 * Reading sense data in either format (SPC-4 §4.5), and the sense-key-specific field pointer layout (§4.5.2.4.2):
 * <pre>
 *  byte 0  SKSV(7) | C/D(6) | reserved(5..4) | BPV(3) | BIT POINTER(2..0)
 *  byte 1-2 FIELD POINTER
 * </pre>
 */
public final class SenseData {
    private SenseData() {}

    public static final int SKSV = 0x80_00_00;
    public static final int SKS_C_D = 0x40_00_00;
    public static final int SKS_BPV = 0x08_00_00;

    /** Field pointer value: {@code inCdb} sets C/D (the error is in the CDB, else in the parameter list). */
    public static int fieldPointer(boolean inCdb, int byteOffset, int bit) {
        int v = SKSV | (inCdb ? SKS_C_D : 0) | (byteOffset & 0xFFFF);
        if (bit >= 0) {
            v |= SKS_BPV | (bit & 7) << 16;
        }
        return v;
    }

    public static boolean isDescriptorFormat(byte[] s) { return (s[0] & 0x7F) == 0x72 || (s[0] & 0x7F) == 0x73; }

    public static int senseKey(byte[] s) { return (isDescriptorFormat(s) ? s[1] : s[2]) & 0x0F; }

    /** ASC/ASCQ as one int (see {@link Asc}). */
    public static int ascAscq(byte[] s) {
        return isDescriptorFormat(s) ? Asc.of(s[2], s[3]) : Asc.of(s[FixedSense.ASC], s[FixedSense.ASCQ]);
    }

    /** @return the 24-bit sense-key-specific value (with SKSV), or -1 when absent. */
    public static int senseKeySpecific(byte[] s, int length) {
        if (!isDescriptorFormat(s)) {
            return length >= FixedSense.LENGTH && (s[FixedSense.SKS] & 0x80) != 0 ? BigEndian.u24(s, FixedSense.SKS) : -1;
        }
        int p = DescriptorSense.HEADER_LENGTH;
        int end = Math.min(length, 8 + (s[7] & 0xFF));
        while (p + 2 <= end) {
            if (s[p] == DescriptorSense.TYPE_SENSE_KEY_SPECIFIC && p + 7 <= end) {
                return (s[p + 4] & 0x80) != 0 ? BigEndian.u24(s, p + 4) : -1;
            }
            p += 2 + (s[p + 1] & 0xFF);
        }
        return -1;
    }

    /** @return the information field, or -1 when VALID is clear / no information descriptor. */
    public static long information(byte[] s, int length) {
        if (!isDescriptorFormat(s)) {
            return (s[0] & 0x80) != 0 ? BigEndian.u32(s, FixedSense.INFORMATION) : -1;
        }
        int p = DescriptorSense.HEADER_LENGTH;
        int end = Math.min(length, 8 + (s[7] & 0xFF));
        while (p + 2 <= end) {
            if (s[p] == DescriptorSense.TYPE_INFORMATION && p + 12 <= end) {
                return BigEndian.s64(s, p + 4);
            }
            p += 2 + (s[p + 1] & 0xFF);
        }
        return -1;
    }
}
