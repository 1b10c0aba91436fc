package io.hostwide.scsi.spec;

/**
 * SPC-4 §4.2.5.1 Table 5: the group code (opcode bits 7..5) fixes the CDB length, except group 3 (reserved;
 * 7Fh is the variable-length CDB, SPC-4 §4.2.3) and groups 6/7 (vendor specific).
 */
public final class CdbGroup {
    private CdbGroup() {}

    /** Maximum CDB length: a 32-byte variable-length CDB may grow to 260 bytes (SPC-4 §4.2.3, ADDITIONAL CDB LENGTH). */
    public static final int MAX_CDB_LENGTH = 260;

    /** @return the CDB length the group code implies, or 0 when the group does not fix one (3, 6, 7). */
    public static int lengthOf(int opcode) {
        return switch ((opcode & 0xFF) >>> 5) {
            case 0 -> 6;
            case 1, 2 -> 10;
            case 4 -> 16;
            case 5 -> 12;
            default -> 0;
        };
    }

    /** The CONTROL byte is the last byte of the fixed-length CDB (SAM-5 §5.2): NACA bit 2, LINK bit 0. */
    public static final int CONTROL_NACA = 0x04;
    public static final int CONTROL_LINK = 0x01;
}
