package io.hostwide.tcm.core;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Direct buffers larger than a command keeps for itself ({@link BufferCache#RETAIN_LIMIT}), shared by all commands
 * and reused, in power-of-two size classes up to the largest transfer ({@link #MAX_CLASS}).
 *
 * <p>Why: a 1 MiB READ or WRITE (Linux's request size on our LUNs, the optimal transfer length) used to get a
 * one-off buffer per command: {@code allocateDirect} zeroes it, registers a cleaner, and once direct memory nears
 * its limit makes the JVM collect and wait (issue 13: large reads lost to tgtd). Here a command borrows one and gives
 * it back when it is released.
 *
 * <p>Memory budget: at most {@link #maxPooledBytes} of idle buffers are kept (64 MiB by default, a sixteen-deep queue
 * of 1 MiB commands in each direction, twice over); a buffer given back beyond that is dropped for the collector.
 * Buffers in use are bounded by the commands in flight, as before.
 */
final class LargeBuffers {
    /** Smallest class: the first size above what commands keep for themselves. */
    static final int MIN_CLASS = BufferCache.RETAIN_LIMIT << 1;
    /** Largest class (16 MiB): above the default 8 MiB maximum transfer; larger requests are one-off buffers. */
    static final int MAX_CLASS = 16 << 20;
    static final long DEFAULT_MAX_POOLED_BYTES = 64L << 20;
    /** The buffers every session's commands share. */
    static final LargeBuffers SHARED = new LargeBuffers(DEFAULT_MAX_POOLED_BYTES);

    private final long maxPooledBytes;
    private final AtomicLong pooledBytes = new AtomicLong();
    @SuppressWarnings("unchecked")
    private final ConcurrentLinkedQueue<ByteBuffer>[] classes = new ConcurrentLinkedQueue[
            Integer.numberOfTrailingZeros(MAX_CLASS) - Integer.numberOfTrailingZeros(MIN_CLASS) + 1];

    LargeBuffers(long maxPooledBytes) {
        this.maxPooledBytes = maxPooledBytes;
        for (int i = 0; i < classes.length; i++) {
            classes[i] = new ConcurrentLinkedQueue<>();
        }
    }

    /** A direct buffer of at least {@code capacity} bytes (a power of two when pooled), cleared. */
    ByteBuffer take(int capacity) {
        int c = classOf(capacity);
        if (c < 0) {
            return ByteBuffer.allocateDirect(capacity);
        }
        ByteBuffer b = classes[c].poll();
        if (b == null) {
            return ByteBuffer.allocateDirect(MIN_CLASS << c);
        }
        pooledBytes.addAndGet(-b.capacity());
        return b.clear();
    }

    /** Takes back a buffer from {@link #take}; one of no class, or beyond the bound, is left to the collector. */
    void give(ByteBuffer b) {
        int cap = b.capacity();
        int c = classOf(cap);
        if (c < 0 || MIN_CLASS << c != cap) {
            return;
        }
        if (pooledBytes.addAndGet(cap) > maxPooledBytes) {
            pooledBytes.addAndGet(-cap);
            return;
        }
        classes[c].offer(b);
    }

    /** Idle bytes held now. */
    long pooledBytes() {
        return pooledBytes.get();
    }

    private static int classOf(int capacity) {
        if (capacity > MAX_CLASS) {
            return -1;
        }
        int size = Math.max(MIN_CLASS, Integer.highestOneBit(capacity - 1) << 1);
        return Integer.numberOfTrailingZeros(size) - Integer.numberOfTrailingZeros(MIN_CLASS);
    }
}
