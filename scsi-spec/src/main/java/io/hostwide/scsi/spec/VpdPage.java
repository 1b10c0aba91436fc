package io.hostwide.scsi.spec;

/**
 * Vital product data pages (SPC-4 §7.8, SBC-4 §6.6). Every page starts with a 4-byte header:
 * <pre>
 *  byte 0   PERIPHERAL QUALIFIER(7..5) | PERIPHERAL DEVICE TYPE(4..0)
 *  byte 1   PAGE CODE
 *  byte 2-3 PAGE LENGTH (n - 3)
 * </pre>
 */
public final class VpdPage {
    private VpdPage() {}

    public static final int HEADER_LENGTH = 4;

    public static final int SUPPORTED_VPD_PAGES = 0x00;
    public static final int UNIT_SERIAL_NUMBER = 0x80;
    public static final int DEVICE_IDENTIFICATION = 0x83;
    public static final int EXTENDED_INQUIRY_DATA = 0x86;
    public static final int MODE_PAGE_POLICY = 0x87;
    public static final int SCSI_PORTS = 0x88;
    public static final int BLOCK_LIMITS = 0xB0;
    public static final int BLOCK_DEVICE_CHARACTERISTICS = 0xB1;
    public static final int LOGICAL_BLOCK_PROVISIONING = 0xB2;
    public static final int REFERRALS = 0xB3;

    /** SPC-4 §7.8.7 Extended INQUIRY Data page length field value (page is 64 bytes). */
    public static final int EXTENDED_INQUIRY_PAGE_LENGTH = 0x3C;
    /** SBC-4 §6.6.4 Block Limits page length field value (page is 64 bytes). */
    public static final int BLOCK_LIMITS_PAGE_LENGTH = 0x3C;
    /** SBC-4 §6.6.2 Block Device Characteristics page length field value (64 bytes). */
    public static final int BLOCK_DEVICE_CHARACTERISTICS_PAGE_LENGTH = 0x3C;
    /** SBC-4 §6.6.5 Logical Block Provisioning page length without a provisioning group descriptor. */
    public static final int LOGICAL_BLOCK_PROVISIONING_PAGE_LENGTH = 0x04;
    /** SBC-4 §6.6.6 Referrals page length field value. */
    public static final int REFERRALS_PAGE_LENGTH = 0x0C;

    /** Block Limits (B0h) field offsets, SBC-4 §6.6.4 Table 221. */
    public static final class BlockLimits {
        private BlockLimits() {}

        public static final int WSNZ = 4;                                   // bit 0
        public static final int MAXIMUM_COMPARE_AND_WRITE_LENGTH = 5;
        public static final int OPTIMAL_TRANSFER_LENGTH_GRANULARITY = 6;    // 2 bytes
        public static final int MAXIMUM_TRANSFER_LENGTH = 8;                // 4 bytes
        public static final int OPTIMAL_TRANSFER_LENGTH = 12;               // 4 bytes
        public static final int MAXIMUM_PREFETCH_LENGTH = 16;               // 4 bytes
        public static final int MAXIMUM_UNMAP_LBA_COUNT = 20;               // 4 bytes
        public static final int MAXIMUM_UNMAP_BLOCK_DESCRIPTOR_COUNT = 24;  // 4 bytes
        public static final int OPTIMAL_UNMAP_GRANULARITY = 28;             // 4 bytes
        public static final int UNMAP_GRANULARITY_ALIGNMENT = 32;           // UGAVALID bit 7 of byte 32, 4 bytes
        public static final int MAXIMUM_WRITE_SAME_LENGTH = 36;             // 8 bytes
        public static final int MAXIMUM_ATOMIC_TRANSFER_LENGTH = 44;        // 4 bytes
        public static final int ATOMIC_ALIGNMENT = 48;                      // 4 bytes
        public static final int ATOMIC_TRANSFER_LENGTH_GRANULARITY = 52;    // 4 bytes
        public static final int MAXIMUM_ATOMIC_TRANSFER_LENGTH_WITH_BOUNDARY = 56; // 4 bytes
        public static final int MAXIMUM_ATOMIC_BOUNDARY_SIZE = 60;          // 4 bytes
        public static final int LENGTH = 64;
    }

    /** Logical Block Provisioning (B2h) field offsets, SBC-4 §6.6.5 Table 223. */
    public static final class LogicalBlockProvisioning {
        private LogicalBlockProvisioning() {}

        public static final int THRESHOLD_EXPONENT = 4;
        /** byte 5: LBPU(7) LBPWS(6) LBPWS10(5) LBPRZ(4..2) ANC_SUP(1) DP(0). */
        public static final int FLAGS = 5;
        public static final int LBPU = 0x80;
        public static final int LBPWS = 0x40;
        public static final int LBPWS10 = 0x20;
        public static final int LBPRZ_SHIFT = 2;
        public static final int ANC_SUP = 0x02;
        public static final int DP = 0x01;
        /** byte 6: MINIMUM PERCENTAGE(7..3) | PROVISIONING TYPE(2..0). */
        public static final int PROVISIONING_TYPE = 6;
        public static final int PROVISIONING_TYPE_FULL = 0;
        public static final int PROVISIONING_TYPE_RESOURCE = 1;
        public static final int PROVISIONING_TYPE_THIN = 2;
        public static final int LENGTH = 8;
    }

    /** Device Identification (83h) designation descriptor header, SPC-4 §7.8.6.1 Table 459. */
    public static final class Designator {
        private Designator() {}

        public static final int HEADER_LENGTH = 4;
        /** byte 0: PROTOCOL IDENTIFIER(7..4) | CODE SET(3..0); byte 1: PIV(7) | ASSOCIATION(5..4) | TYPE(3..0). */
        public static final int CODE_SET_BINARY = 0x1;
        public static final int CODE_SET_ASCII = 0x2;
        public static final int CODE_SET_UTF8 = 0x3;
        public static final int PIV = 0x80;
        public static final int ASSOCIATION_LU = 0x00;
        public static final int ASSOCIATION_TARGET_PORT = 0x10;
        public static final int ASSOCIATION_TARGET_DEVICE = 0x20;
        public static final int TYPE_VENDOR = 0x0;
        public static final int TYPE_T10_VENDOR_ID = 0x1;
        public static final int TYPE_EUI64 = 0x2;
        public static final int TYPE_NAA = 0x3;
        public static final int TYPE_RELATIVE_TARGET_PORT = 0x4;
        public static final int TYPE_TARGET_PORT_GROUP = 0x5;
        public static final int TYPE_LOGICAL_UNIT_GROUP = 0x6;
        public static final int TYPE_MD5_LU = 0x7;
        public static final int TYPE_SCSI_NAME_STRING = 0x8;
        /** SPC-4 §7.6.1 Table 362 protocol identifiers. */
        public static final int PROTOCOL_FCP = 0x0;
        public static final int PROTOCOL_SRP = 0x4;
        public static final int PROTOCOL_ISCSI = 0x5;
        public static final int PROTOCOL_SAS = 0x6;
        public static final int PROTOCOL_NONE = 0xF;
        /** NAA IEEE Registered (5h) designator: 8 bytes. */
        public static final int NAA_IEEE_REGISTERED = 0x5;
        public static final int NAA_IEEE_REGISTERED_EXTENDED = 0x6;
    }
}
