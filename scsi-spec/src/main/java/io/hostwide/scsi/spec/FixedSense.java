package io.hostwide.scsi.spec;

/**
 * SPC-4 §4.5.3 fixed format sense data, 18 bytes:
 * <pre>
 *  byte 0     VALID(7) | RESPONSE CODE(6..0) = 70h current / 71h deferred
 *  byte 1     obsolete
 *  byte 2     FILEMARK(7) | EOM(6) | ILI(5) | SDAT_OVFL(4) | reserved(3..0 of upper) SENSE KEY(3..0)
 *  byte 3-6   INFORMATION
 *  byte 7     ADDITIONAL SENSE LENGTH (n - 7 = 10)
 *  byte 8-11  COMMAND-SPECIFIC INFORMATION
 *  byte 12    ADDITIONAL SENSE CODE
 *  byte 13    ADDITIONAL SENSE CODE QUALIFIER
 *  byte 14    FIELD REPLACEABLE UNIT CODE
 *  byte 15-17 SKSV(7) | SENSE KEY SPECIFIC
 * </pre>
 */
public final class FixedSense {
    private FixedSense() {}

    public static final int LENGTH = 18;
    public static final int RESPONSE_CURRENT = 0x70;
    public static final int RESPONSE_DEFERRED = 0x71;
    public static final int VALID = 0x80;
    public static final int SENSE_KEY = 2;
    public static final int INFORMATION = 3;
    public static final int ADDITIONAL_LENGTH = 7;
    public static final int COMMAND_SPECIFIC = 8;
    public static final int ASC = 12;
    public static final int ASCQ = 13;
    public static final int SKS = 15;

    /**
     * Writes 18 bytes at dst[0..18).
     *
     * @param info information field; one that does not fit its 32 bits (an LBA past 2 TiB of 512-byte blocks)
     *             is left out with VALID clear rather than truncated (SPC-4 §4.5.3: descriptor format carries it)
     * @param sks  the 3-byte sense-key-specific value including SKSV, or -1 for none
     * @return the sense length (18)
     */
    public static int encode(byte[] dst, int senseKey, int ascAscq, boolean infoValid, long info, int sks) {
        infoValid &= (info >>> 32) == 0;
        java.util.Arrays.fill(dst, 0, LENGTH, (byte) 0);
        dst[0] = (byte) (RESPONSE_CURRENT | (infoValid ? VALID : 0));
        dst[SENSE_KEY] = (byte) (senseKey & 0x0F);
        if (infoValid) {
            BigEndian.put32(dst, INFORMATION, info);
        }
        dst[ADDITIONAL_LENGTH] = (byte) (LENGTH - 8);
        dst[ASC] = (byte) Asc.asc(ascAscq);
        dst[ASCQ] = (byte) Asc.ascq(ascAscq);
        if (sks >= 0) {
            BigEndian.put24(dst, SKS, sks);
        }
        return LENGTH;
    }
}
