package io.hostwide.scsi.spec;

/**
 * SBC-4 §5.16 ten-byte CDB (READ(10) form):
 * <pre>
 *  byte 0   OPERATION CODE
 *  byte 1   RDPROTECT/WRPROTECT(7..5) | DPO(4) | FUA(3) | reserved(2) | FUA_NV obsolete(1) | obsolete(0)
 *  byte 2-5 LOGICAL BLOCK ADDRESS
 *  byte 6   reserved(7..5) | GROUP NUMBER(4..0)
 *  byte 7-8 TRANSFER LENGTH / ALLOCATION LENGTH / PARAMETER LIST LENGTH
 *  byte 9   CONTROL
 * </pre>
 */
public final class Cdb10 {
    private Cdb10() {}

    public static final int LENGTH = 10;
    public static final int FLAGS = 1;
    public static final int LBA = 2;
    public static final int GROUP = 6;
    public static final int TRANSFER_LENGTH = 7;
    public static final int CONTROL = 9;

    public static final int DPO = 0x10;
    public static final int FUA = 0x08;
    /** RDPROTECT / WRPROTECT / VRPROTECT / ORPROTECT field: byte 1 bits 7..5. */
    public static final int PROTECT_MASK = 0xE0;

    public static long lba(byte[] cdb) { return BigEndian.u32(cdb, LBA); }

    public static int transferLength(byte[] cdb) { return BigEndian.u16(cdb, TRANSFER_LENGTH); }

    public static byte[] encode(byte[] cdb, int opcode, int flags, long lba, int length, int group, int control) {
        cdb[0] = (byte) opcode;
        cdb[FLAGS] = (byte) flags;
        BigEndian.put32(cdb, LBA, lba);
        cdb[GROUP] = (byte) (group & 0x1F);
        BigEndian.put16(cdb, TRANSFER_LENGTH, length);
        cdb[CONTROL] = (byte) control;
        return cdb;
    }
}
