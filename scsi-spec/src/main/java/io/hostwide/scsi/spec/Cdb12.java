package io.hostwide.scsi.spec;

/**
 * SBC-4 §5.17 twelve-byte CDB (READ(12) form):
 * <pre>
 *  byte 0    OPERATION CODE
 *  byte 1    RDPROTECT(7..5) | DPO(4) | FUA(3) | reserved(2..0)
 *  byte 2-5  LOGICAL BLOCK ADDRESS
 *  byte 6-9  TRANSFER LENGTH / ALLOCATION LENGTH
 *  byte 10   reserved(7..5) | GROUP NUMBER(4..0)
 *  byte 11   CONTROL
 * </pre>
 */
public final class Cdb12 {
    private Cdb12() {}

    public static final int LENGTH = 12;
    public static final int FLAGS = 1;
    public static final int LBA = 2;
    public static final int TRANSFER_LENGTH = 6;
    public static final int GROUP = 10;
    public static final int CONTROL = 11;

    public static long lba(byte[] cdb) { return BigEndian.u32(cdb, LBA); }

    public static long transferLength(byte[] cdb) { return BigEndian.u32(cdb, TRANSFER_LENGTH); }

    public static byte[] encode(byte[] cdb, int opcode, int flags, long lba, long length, int group, int control) {
        cdb[0] = (byte) opcode;
        cdb[FLAGS] = (byte) flags;
        BigEndian.put32(cdb, LBA, lba);
        BigEndian.put32(cdb, TRANSFER_LENGTH, length);
        cdb[GROUP] = (byte) (group & 0x1F);
        cdb[CONTROL] = (byte) control;
        return cdb;
    }
}
