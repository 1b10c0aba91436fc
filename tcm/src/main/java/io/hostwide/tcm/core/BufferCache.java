package io.hostwide.tcm.core;

import java.nio.ByteBuffer;

/**
 * Buffers a pooled command keeps between uses, so that steady-state I/O allocates nothing: a direct Data-In
 * buffer, a direct Data-Out buffer and a heap scratch array, each grown to the largest size seen up to
 * {@link #RETAIN_LIMIT}; larger requests borrow one from {@link LargeBuffers#SHARED} until {@link #giveBack()}.
 */
final class BufferCache {
    /**
     * Buffers up to this size are kept with the command (256 KiB, iSCSI's default MaxBurstLength): a session's
     * pool of 256 commands then holds at most 64 MiB per direction; larger transfers borrow shared ones.
     */
    static final int RETAIN_LIMIT = 256 << 10;
    static final ByteBuffer EMPTY = ByteBuffer.allocateDirect(0);

    private ByteBuffer in;
    private ByteBuffer out;
    private byte[] scratch = new byte[512];
    /** Borrowed from the shared large buffers for this use of the command; null when none. */
    private ByteBuffer largeIn;
    private ByteBuffer largeOut;
    /** The last {@link #in} was {@link #largeIn} (else {@link #in}): what {@link #retireIn} drops. */
    private boolean inWasLarge;
    private final LargeBuffers large;

    BufferCache() {
        this(LargeBuffers.SHARED);
    }

    BufferCache(LargeBuffers large) {
        this.large = large;
    }

    ByteBuffer in(int capacity) {
        inWasLarge = roundUp(capacity) > RETAIN_LIMIT;
        if (inWasLarge) {
            largeIn = borrow(largeIn, capacity);
            return largeIn.clear().limit(capacity);
        }
        ByteBuffer b = in;
        if (b == null || b.capacity() < capacity) {
            b = ByteBuffer.allocateDirect(roundUp(capacity));
            in = b;
        }
        return b.clear().limit(capacity);
    }

    ByteBuffer out(int capacity) {
        if (roundUp(capacity) > RETAIN_LIMIT) {
            largeOut = borrow(largeOut, capacity);
            return largeOut.clear().limit(capacity);
        }
        ByteBuffer b = out;
        if (b == null || b.capacity() < capacity) {
            b = ByteBuffer.allocateDirect(roundUp(capacity));
            out = b;
        }
        return b.clear().limit(capacity);
    }

    /**
     * Drops the buffer the last {@link #in} returned without reusing it or giving it back to the shared ones: a
     * backstore's storage may still write into it (it keeps it referenced until then); the next {@link #in}
     * allocates or borrows another.
     */
    void retireIn() {
        if (inWasLarge) {
            largeIn = null;
        } else {
            in = null;
        }
    }

    private ByteBuffer borrow(ByteBuffer held, int capacity) {
        if (held != null && held.capacity() >= capacity) {
            return held;
        }
        if (held != null) {
            large.give(held);
        }
        return large.take(capacity);
    }

    /**
     * Returns the borrowed large buffers; only once nothing can touch them any more (the command is released: its
     * Data-In has been written to the wire and its Data-Out consumed).
     */
    void giveBack() {
        if (largeIn != null) {
            large.give(largeIn);
            largeIn = null;
        }
        if (largeOut != null) {
            large.give(largeOut);
            largeOut = null;
        }
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
