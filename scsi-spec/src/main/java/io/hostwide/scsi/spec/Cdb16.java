package io.hostwide.scsi.spec;

/**
 * SBC-4 §5.18 sixteen-byte CDB (READ(16) form):
 * <pre>
 *  byte 0     OPERATION CODE
 *  byte 1     RDPROTECT(7..5) | DPO(4) | FUA(3) | reserved(2) | obsolete(1) | DLD2(0)
 *  byte 2-9   LOGICAL BLOCK ADDRESS
 *  byte 10-13 TRANSFER LENGTH
 *  byte 14    DLD1(7) | DLD0(6) | GROUP NUMBER(5..0)
 *  byte 15    CONTROL
 * </pre>
 * SERVICE ACTION IN(16) reuses the layout with a service action in byte 1 bits 4..0 and the ALLOCATION LENGTH
 * in bytes 10..13.
 */
public final class Cdb16 {
    private Cdb16() {}

    public static final int LENGTH = 16;
    public static final int FLAGS = 1;
    public static final int LBA = 2;
    public static final int TRANSFER_LENGTH = 10;
    public static final int GROUP = 14;
    public static final int CONTROL = 15;

    public static long lba(byte[] cdb) { return BigEndian.s64(cdb, LBA); }

    public static long transferLength(byte[] cdb) { return BigEndian.u32(cdb, TRANSFER_LENGTH); }

    public static byte[] encode(byte[] cdb, int opcode, int flags, long lba, long length, int group, int control) {
        cdb[0] = (byte) opcode;
        cdb[FLAGS] = (byte) flags;
        BigEndian.put64(cdb, LBA, lba);
        BigEndian.put32(cdb, TRANSFER_LENGTH, length);
        cdb[GROUP] = (byte) (group & 0x3F);
        cdb[CONTROL] = (byte) control;
        return cdb;
    }
}
