package io.hostwide.scsi.spec;

/**
 * SPC-4 §4.2.2 / SBC-4 §5.15 six-byte CDB (READ(6)/WRITE(6) form):
 * <pre>
 *  byte 0   OPERATION CODE
 *  byte 1   reserved(7..5) | LOGICAL BLOCK ADDRESS (20..16)
 *  byte 2-3 LOGICAL BLOCK ADDRESS (15..0)
 *  byte 4   TRANSFER LENGTH (0 means 256 blocks for READ(6)/WRITE(6)) / ALLOCATION LENGTH
 *  byte 5   CONTROL
 * </pre>
 */
public final class Cdb6 {
    private Cdb6() {}

    public static final int LENGTH = 6;
    public static final int LBA = 1;
    public static final int TRANSFER_LENGTH = 4;
    public static final int CONTROL = 5;

    /** 21-bit LBA. */
    public static long lba(byte[] cdb) { return BigEndian.u24(cdb, LBA) & 0x1F_FFFF; }

    /** Raw transfer length byte (0..255); READ(6)/WRITE(6) map 0 to 256 (SBC-4 §5.15). */
    public static int transferLength(byte[] cdb) { return cdb[TRANSFER_LENGTH] & 0xFF; }

    public static byte[] encode(byte[] cdb, int opcode, long lba, int length, int control) {
        cdb[0] = (byte) opcode;
        BigEndian.put24(cdb, LBA, (int) (lba & 0x1F_FFFF));
        cdb[TRANSFER_LENGTH] = (byte) length;
        cdb[CONTROL] = (byte) control;
        return cdb;
    }
}
