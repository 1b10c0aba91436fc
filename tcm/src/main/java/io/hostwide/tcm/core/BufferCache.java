package io.hostwide.tcm.core;

import java.nio.ByteBuffer;

/**
 * Buffers a pooled command keeps between uses, so that steady-state I/O allocates nothing: a direct Data-In
 * buffer, a direct Data-Out buffer and a heap scratch array, each grown to the largest size seen up to
 * {@link #RETAIN_LIMIT}; larger requests get a one-off buffer that is dropped after the command.
 */
final class BufferCache {
    /**
     * Buffers up to this size are kept with the command (256 KiB, iSCSI's default MaxBurstLength): a session's
     * pool of 256 commands then holds at most 64 MiB per direction; larger transfers get one-off buffers.
     */
    static final int RETAIN_LIMIT = 256 << 10;
    static final ByteBuffer EMPTY = ByteBuffer.allocateDirect(0);

    private ByteBuffer in;
    private ByteBuffer out;
    private byte[] scratch = new byte[512];

    ByteBuffer in(int capacity) {
        ByteBuffer b = in;
        if (b == null || b.capacity() < capacity) {
            b = ByteBuffer.allocateDirect(roundUp(capacity));
            if (b.capacity() <= RETAIN_LIMIT) {
                in = b;
            }
        }
        return b.clear().limit(capacity);
    }

    ByteBuffer out(int capacity) {
        ByteBuffer b = out;
        if (b == null || b.capacity() < capacity) {
            b = ByteBuffer.allocateDirect(roundUp(capacity));
            if (b.capacity() <= RETAIN_LIMIT) {
                out = b;
            }
        }
        return b.clear().limit(capacity);
    }

    byte[] scratch(int size) {
        byte[] s = scratch;
        if (s.length < size) {
            s = new byte[roundUp(size)];
            if (s.length <= RETAIN_LIMIT) {
                scratch = s;
            }
        } else {
            java.util.Arrays.fill(s, 0, size, (byte) 0);
        }
        return s;
    }

    private static int roundUp(int n) {
        if (n <= 4096) {
            return 4096;
        }
        int p = Integer.highestOneBit(n - 1) << 1;
        return p <= 0 ? n : p;
    }
}
