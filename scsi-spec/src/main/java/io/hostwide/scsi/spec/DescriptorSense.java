package io.hostwide.scsi.spec;

/**
 * SPC-4 §4.5.2 descriptor format sense data:
 * <pre>
 *  byte 0    reserved(7) | RESPONSE CODE = 72h current / 73h deferred
 *  byte 1    reserved(7..4) | SENSE KEY(3..0)
 *  byte 2    ADDITIONAL SENSE CODE
 *  byte 3    ADDITIONAL SENSE CODE QUALIFIER
 *  byte 4    SDAT_OVFL(7) | reserved
 *  byte 5-6  reserved
 *  byte 7    ADDITIONAL SENSE LENGTH (n - 7)
 *  byte 8-   sense data descriptors
 * </pre>
 * Information descriptor (§4.5.2.2, type 00h, 12 bytes): type, 0Ah, VALID(7)=1, reserved, INFORMATION(8).
 * Sense key specific descriptor (§4.5.2.4, type 02h, 8 bytes): type, 06h, 2 reserved, SKS(3), reserved.
 */
public final class DescriptorSense {
    private DescriptorSense() {}

    public static final int HEADER_LENGTH = 8;
    public static final int RESPONSE_CURRENT = 0x72;
    public static final int RESPONSE_DEFERRED = 0x73;
    public static final int SENSE_KEY = 1;
    public static final int ASC = 2;
    public static final int ASCQ = 3;
    public static final int ADDITIONAL_LENGTH = 7;

    public static final int TYPE_INFORMATION = 0x00;
    public static final int TYPE_COMMAND_SPECIFIC = 0x01;
    public static final int TYPE_SENSE_KEY_SPECIFIC = 0x02;
    public static final int INFORMATION_DESCRIPTOR_LENGTH = 12;
    public static final int SKS_DESCRIPTOR_LENGTH = 8;

    /** Writes header plus optional information and sense-key-specific descriptors; returns the sense length. */
    public static int encode(byte[] dst, int senseKey, int ascAscq, boolean infoValid, long info, int sks) {
        int len = HEADER_LENGTH + (infoValid ? INFORMATION_DESCRIPTOR_LENGTH : 0) + (sks >= 0 ? SKS_DESCRIPTOR_LENGTH : 0);
        java.util.Arrays.fill(dst, 0, len, (byte) 0);
        dst[0] = (byte) RESPONSE_CURRENT;
        dst[SENSE_KEY] = (byte) (senseKey & 0x0F);
        dst[ASC] = (byte) Asc.asc(ascAscq);
        dst[ASCQ] = (byte) Asc.ascq(ascAscq);
        dst[ADDITIONAL_LENGTH] = (byte) (len - 8);
        int p = HEADER_LENGTH;
        if (infoValid) {
            dst[p] = TYPE_INFORMATION;
            dst[p + 1] = 0x0A;
            dst[p + 2] = (byte) 0x80;
            BigEndian.put64(dst, p + 4, info);
            p += INFORMATION_DESCRIPTOR_LENGTH;
        }
        if (sks >= 0) {
            dst[p] = TYPE_SENSE_KEY_SPECIFIC;
            dst[p + 1] = 0x06;
            BigEndian.put24(dst, p + 4, sks);
        }
        return len;
    }
}
