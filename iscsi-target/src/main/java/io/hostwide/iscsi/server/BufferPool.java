package io.hostwide.iscsi.server;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Direct buffers of one size, reused across connections so that accepting a connection allocates none. At most
 * {@code maxPooled} free buffers are kept; one given back beyond that is dropped, and the garbage collector frees its
 * memory (within -XX:MaxDirectMemorySize, which makes the JVM collect before it exceeds the limit). When the users of
 * a pool are themselves capped (the login buffers: {@link LoginGate}), a pool that keeps as many as can be in use
 * never allocates more than that cap: a buffer is only created when every one created so far is in use.
 */
final class BufferPool {
    private final int size;
    private final int maxPooled;
    private final ConcurrentLinkedQueue<ByteBuffer> free = new ConcurrentLinkedQueue<>();
    /** Free buffers held; tracked apart because the queue's own size() walks it. */
    private final AtomicInteger pooled = new AtomicInteger();
    private final AtomicLong created = new AtomicLong();
    private final IntFunction<ByteBuffer> allocator;

    BufferPool(int size, int maxPooled) {
        this(size, maxPooled, ByteBuffer::allocateDirect);
    }

    /** @param allocator makes a new buffer of the given size; may throw OutOfMemoryError (tests inject one that does) */
    BufferPool(int size, int maxPooled, IntFunction<ByteBuffer> allocator) {
        this.size = size;
        this.maxPooled = maxPooled;
        this.allocator = allocator;
    }

    int size() {
        return size;
    }

    /** A cleared buffer of {@link #size()} bytes: a pooled one, or a new one. @throws OutOfMemoryError when none can be made */
    ByteBuffer take() {
        ByteBuffer b = free.poll();
        if (b != null) {
            pooled.decrementAndGet();
            return b.clear();
        }
        ByteBuffer made = allocator.apply(size); // OutOfMemoryError at -XX:MaxDirectMemorySize: the caller decides
        created.incrementAndGet();
        return made;
    }

    void give(ByteBuffer b) {
        if (b == null || b.capacity() != size) {
            return;
        }
        if (pooled.incrementAndGet() <= maxPooled) {
            free.offer(b.clear());
        } else {
            pooled.decrementAndGet(); // over the bound: dropped, for the collector
        }
    }

    /** Buffers allocated by this pool so far (in use, pooled, or dropped). */
    long created() {
        return created.get();
    }

    /** Free buffers held now. */
    int pooled() {
        return pooled.get();
    }
}
