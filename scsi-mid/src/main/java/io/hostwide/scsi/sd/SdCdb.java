package io.hostwide.scsi.sd;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiOpcode;

/** CDB builders of the disk driver (SBC-4 §5); each writes into {@code cdb} and returns the CDB length. */
public final class SdCdb {
    /** FUA bit of byte 1 in READ/WRITE(10/16) (SBC-4 §5.19, §5.39). */
    public static final int FUA = 0x08;
    /** UNMAP bit of byte 1 in WRITE SAME(16) (SBC-4 §5.50). */
    public static final int WS_UNMAP = 0x08;
    /** UNMAP parameter list: 8-byte header + 16-byte block descriptors (SBC-4 §5.28.2). */
    public static final int UNMAP_HEADER = 8;
    public static final int UNMAP_DESCRIPTOR = 16;

    private SdCdb() {
    }

    /** True when READ/WRITE(10) cannot address {@code lba .. +blocks}: LBA beyond 32 bits or more than 0xFFFF blocks. */
    public static boolean needs16(long lba, long blocks) {
        return lba + blocks - 1 > 0xFFFF_FFFFL || blocks > 0xFFFF;
    }

    /** READ/WRITE(10) or (16) as needed, or 16 when {@code force16}. */
    public static int readWrite(byte[] cdb, boolean write, long lba, int blocks, boolean fua, boolean force16) {
        if (force16 || needs16(lba, blocks)) {
            java.util.Arrays.fill(cdb, 0, 16, (byte) 0);
            cdb[0] = (byte) (write ? ScsiOpcode.WRITE_16 : ScsiOpcode.READ_16);
            cdb[1] = (byte) (fua ? FUA : 0);
            BigEndian.put64(cdb, 2, lba);
            BigEndian.put32(cdb, 10, blocks & 0xFFFF_FFFFL);
            return 16;
        }
        java.util.Arrays.fill(cdb, 0, 10, (byte) 0);
        cdb[0] = (byte) (write ? ScsiOpcode.WRITE_10 : ScsiOpcode.READ_10);
        cdb[1] = (byte) (fua ? FUA : 0);
        BigEndian.put32(cdb, 2, lba);
        BigEndian.put16(cdb, 7, blocks);
        return 10;
    }

    /** SYNCHRONIZE CACHE(10), or (16) for devices beyond 2^32 blocks; whole medium (LBA 0, 0 blocks). */
    public static int synchronizeCache(byte[] cdb, boolean use16) {
        int n = use16 ? 16 : 10;
        java.util.Arrays.fill(cdb, 0, n, (byte) 0);
        cdb[0] = (byte) (use16 ? ScsiOpcode.SYNCHRONIZE_CACHE_16 : ScsiOpcode.SYNCHRONIZE_CACHE_10);
        return n;
    }

    /** UNMAP with a parameter list of {@code paramLength} bytes (SBC-4 §5.28). */
    public static int unmap(byte[] cdb, int paramLength) {
        java.util.Arrays.fill(cdb, 0, 10, (byte) 0);
        cdb[0] = (byte) ScsiOpcode.UNMAP;
        BigEndian.put16(cdb, 7, paramLength);
        return 10;
    }

    /** Fills a one-descriptor UNMAP parameter list into {@code p} (24 bytes). */
    public static void unmapParameters(byte[] p, long lba, int blocks) {
        java.util.Arrays.fill(p, 0, UNMAP_HEADER + UNMAP_DESCRIPTOR, (byte) 0);
        BigEndian.put16(p, 0, UNMAP_HEADER + UNMAP_DESCRIPTOR - 2);   // UNMAP DATA LENGTH
        BigEndian.put16(p, 2, UNMAP_DESCRIPTOR);                      // BLOCK DESCRIPTOR DATA LENGTH
        BigEndian.put64(p, UNMAP_HEADER, lba);
        BigEndian.put32(p, UNMAP_HEADER + 8, blocks & 0xFFFF_FFFFL);
    }

    /** BYTCHK 01b of VERIFY (SBC-4 §5.34): compare the medium with the Data-Out blocks. */
    public static final int BYTCHK_COMPARE = 1;

    /**
     * VERIFY(16) of {@code lba .. +blocks} with BYTCHK {@code bytchk} in byte 1 bits 2..1 (SBC-4 §5.34); with
     * {@link #BYTCHK_COMPARE} the Data-Out is {@code blocks} blocks and a difference ends in MISCOMPARE with the
     * offset of the first differing byte in INFORMATION.
     */
    public static int verify16(byte[] cdb, long lba, int blocks, int bytchk) {
        java.util.Arrays.fill(cdb, 0, 16, (byte) 0);
        cdb[0] = (byte) ScsiOpcode.VERIFY_16;
        cdb[1] = (byte) ((bytchk & 0x03) << 1);
        BigEndian.put64(cdb, 2, lba);
        BigEndian.put32(cdb, 10, blocks & 0xFFFF_FFFFL);
        return 16;
    }

    /** WRITE SAME(16) with UNMAP over {@code lba .. +blocks}; one block of Data-Out (zeros). */
    public static int writeSameUnmap(byte[] cdb, long lba, int blocks) {
        java.util.Arrays.fill(cdb, 0, 16, (byte) 0);
        cdb[0] = (byte) ScsiOpcode.WRITE_SAME_16;
        cdb[1] = (byte) WS_UNMAP;
        BigEndian.put64(cdb, 2, lba);
        BigEndian.put32(cdb, 10, blocks & 0xFFFF_FFFFL);
        return 16;
    }
}
