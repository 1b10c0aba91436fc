package io.hostwide.scsi.spec;

/** Big-endian field access on byte arrays: every multi-byte SCSI field is big-endian (SPC-4 §3.5). */
public final class BigEndian {
    private BigEndian() {}

    public static int u8(byte[] b, int off) { return b[off] & 0xFF; }

    public static int u16(byte[] b, int off) { return (b[off] & 0xFF) << 8 | (b[off + 1] & 0xFF); }

    public static int u24(byte[] b, int off) {
        return (b[off] & 0xFF) << 16 | (b[off + 1] & 0xFF) << 8 | (b[off + 2] & 0xFF);
    }

    /** Unsigned 32-bit value, widened to long. */
    public static long u32(byte[] b, int off) { return s32(b, off) & 0xFFFF_FFFFL; }

    public static int s32(byte[] b, int off) {
        return (b[off] & 0xFF) << 24 | (b[off + 1] & 0xFF) << 16 | (b[off + 2] & 0xFF) << 8 | (b[off + 3] & 0xFF);
    }

    public static long s64(byte[] b, int off) { return (long) s32(b, off) << 32 | u32(b, off + 4); }

    public static void put16(byte[] b, int off, int v) { b[off] = (byte) (v >>> 8); b[off + 1] = (byte) v; }

    public static void put24(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 16); b[off + 1] = (byte) (v >>> 8); b[off + 2] = (byte) v;
    }

    public static void put32(byte[] b, int off, long v) {
        b[off] = (byte) (v >>> 24); b[off + 1] = (byte) (v >>> 16); b[off + 2] = (byte) (v >>> 8); b[off + 3] = (byte) v;
    }

    public static void put64(byte[] b, int off, long v) { put32(b, off, v >>> 32); put32(b, off + 4, v); }
}
