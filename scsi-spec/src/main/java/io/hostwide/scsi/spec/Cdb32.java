package io.hostwide.scsi.spec;

/**
 * SPC-4 §4.2.3 variable-length CDB, SBC-4 §5.19 READ(32) form:
 * <pre>
 *  byte 0     OPERATION CODE (7Fh)
 *  byte 1     CONTROL
 *  byte 2-5   reserved
 *  byte 6     reserved(7..5) | GROUP NUMBER(4..0)
 *  byte 7     ADDITIONAL CDB LENGTH (n - 7; 18h for a 32-byte CDB)
 *  byte 8-9   SERVICE ACTION
 *  byte 10    RDPROTECT(7..5) | DPO(4) | FUA(3) | reserved(2..0)
 *  byte 11    reserved
 *  byte 12-19 LOGICAL BLOCK ADDRESS
 *  byte 20-23 EXPECTED INITIAL LOGICAL BLOCK REFERENCE TAG
 *  byte 24-25 EXPECTED LOGICAL BLOCK APPLICATION TAG
 *  byte 26-27 LOGICAL BLOCK APPLICATION TAG MASK
 *  byte 28-31 TRANSFER LENGTH
 * </pre>
 */
public final class Cdb32 {
    private Cdb32() {}

    public static final int LENGTH = 32;
    public static final int CONTROL = 1;
    public static final int GROUP = 6;
    public static final int ADDITIONAL_CDB_LENGTH = 7;
    public static final int SERVICE_ACTION = 8;
    public static final int FLAGS = 10;
    public static final int LBA = 12;
    public static final int TRANSFER_LENGTH = 28;

    /** The ADDITIONAL CDB LENGTH of a 32-byte CDB. */
    public static final int ADDITIONAL_LENGTH_32 = LENGTH - 8;

    public static int serviceAction(byte[] cdb) { return BigEndian.u16(cdb, SERVICE_ACTION); }

    /** Total CDB length the ADDITIONAL CDB LENGTH declares. */
    public static int declaredLength(byte[] cdb) { return (cdb[ADDITIONAL_CDB_LENGTH] & 0xFF) + 8; }

    public static long lba(byte[] cdb) { return BigEndian.s64(cdb, LBA); }

    public static long transferLength(byte[] cdb) { return BigEndian.u32(cdb, TRANSFER_LENGTH); }

    public static byte[] encode(byte[] cdb, int serviceAction, int flags, long lba, long length, int group, int control) {
        cdb[0] = (byte) ScsiOpcode.VARIABLE_LENGTH;
        cdb[CONTROL] = (byte) control;
        cdb[GROUP] = (byte) (group & 0x1F);
        cdb[ADDITIONAL_CDB_LENGTH] = (byte) ADDITIONAL_LENGTH_32;
        BigEndian.put16(cdb, SERVICE_ACTION, serviceAction);
        cdb[FLAGS] = (byte) flags;
        BigEndian.put64(cdb, LBA, lba);
        BigEndian.put32(cdb, TRANSFER_LENGTH, length);
        return cdb;
    }
}
