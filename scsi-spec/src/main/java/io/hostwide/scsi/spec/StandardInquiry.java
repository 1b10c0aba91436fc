package io.hostwide.scsi.spec;

/**
 * SPC-4 §6.6.2 standard INQUIRY data:
 * <pre>
 *  byte 0     PERIPHERAL QUALIFIER(7..5) | PERIPHERAL DEVICE TYPE(4..0)
 *  byte 1     RMB(7) | LU_CONG(6)
 *  byte 2     VERSION
 *  byte 3     NORMACA(5) | HISUP(4) | RESPONSE DATA FORMAT(3..0) = 2
 *  byte 4     ADDITIONAL LENGTH (n - 4)
 *  byte 5     SCCS(7) ACC(6) TPGS(5..4) 3PC(3) PROTECT(0)
 *  byte 6     ENCSERV(6) VS MULTIP(4)
 *  byte 7     CMDQUE(1)
 *  byte 8-15  T10 VENDOR IDENTIFICATION (ASCII, space padded)
 *  byte 16-31 PRODUCT IDENTIFICATION
 *  byte 32-35 PRODUCT REVISION LEVEL
 *  byte 58-73 VERSION DESCRIPTOR 1..8
 * </pre>
 */
public final class StandardInquiry {
    private StandardInquiry() {}

    public static final int MINIMUM_LENGTH = 36;
    public static final int LENGTH_WITH_DESCRIPTORS = 96;
    public static final int RMB = 0x80;
    public static final int HISUP = 0x10;
    public static final int RESPONSE_DATA_FORMAT_2 = 0x02;
    public static final int TPGS_IMPLICIT = 0x10;
    public static final int TPGS_EXPLICIT = 0x20;
    public static final int THREE_PC = 0x08;
    public static final int MULTIP = 0x10;
    public static final int CMDQUE = 0x02;
    public static final int VENDOR = 8;
    public static final int PRODUCT = 16;
    public static final int REVISION = 32;
    public static final int VERSION_DESCRIPTORS = 58;
    public static final int VENDOR_LENGTH = 8;
    public static final int PRODUCT_LENGTH = 16;
    public static final int REVISION_LENGTH = 4;
}
