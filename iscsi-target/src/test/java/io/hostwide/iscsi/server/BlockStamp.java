package io.hostwide.iscsi.server;

/**
 * The contents of a soak-test block: LBA (8 bytes), writing session (4), write generation (8), then bytes derived
 * from all three, so a torn, misplaced or stale block is told apart from the one expected.
 */
final class BlockStamp {
    static final long CORRUPT = -1;
    private static final int HEADER = 20;

    private BlockStamp() {}

    static void stamp(byte[] out, int at, long lba, int session, long gen) {
        putLong(out, at, lba);
        putInt(out, at + 8, session);
        putLong(out, at + 12, gen);
        for (int i = HEADER; i < WriteHistory.BLOCK; i++) {
            out[at + i] = fill(lba, session, gen, i);
        }
    }

    /** The generation a block carries (0 when all zero: never written), or {@link #CORRUPT}. */
    static long generation(byte[] in, int at, long lba) {
        long gen = getLong(in, at + 12);
        int session = getInt(in, at + 8);
        long l = getLong(in, at);
        if (gen == 0 && session == 0 && l == 0) {
            for (int i = HEADER; i < WriteHistory.BLOCK; i++) {
                if (in[at + i] != 0) {
                    return CORRUPT;
                }
            }
            return 0;
        }
        if (l != lba || gen <= 0) {
            return CORRUPT;
        }
        for (int i = HEADER; i < WriteHistory.BLOCK; i++) {
            if (in[at + i] != fill(lba, session, gen, i)) {
                return CORRUPT;
            }
        }
        return gen;
    }

    /** The stamp's header fields, for failure messages. */
    static String describe(byte[] in, int at) {
        return "lba " + getLong(in, at) + " session " + getInt(in, at + 8) + " generation " + getLong(in, at + 12);
    }

    private static byte fill(long lba, int session, long gen, int i) {
        long x = gen * 0x9E3779B97F4A7C15L + lba * 31 + session * 131L + i;
        return (byte) (x ^ x >>> 29);
    }

    private static void putLong(byte[] b, int at, long v) {
        putInt(b, at, (int) (v >>> 32));
        putInt(b, at + 4, (int) v);
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    private static long getLong(byte[] b, int at) {
        return (long) getInt(b, at) << 32 | getInt(b, at + 4) & 0xffff_ffffL;
    }

    private static int getInt(byte[] b, int at) {
        return (b[at] & 0xff) << 24 | (b[at + 1] & 0xff) << 16 | (b[at + 2] & 0xff) << 8 | b[at + 3] & 0xff;
    }
}
