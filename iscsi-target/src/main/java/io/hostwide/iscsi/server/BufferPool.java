package io.hostwide.iscsi.server;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;

/** Direct buffers of one size, reused across connections so that accepting a connection allocates none. */
final class BufferPool {
    private final int size;
    private final int maxPooled;
    private final ConcurrentLinkedQueue<ByteBuffer> free = new ConcurrentLinkedQueue<>();

    BufferPool(int size, int maxPooled) {
        this.size = size;
        this.maxPooled = maxPooled;
    }

    int size() {
        return size;
    }

    ByteBuffer take() {
        ByteBuffer b = free.poll();
        return b != null ? b.clear() : ByteBuffer.allocateDirect(size);
    }

    void give(ByteBuffer b) {
        if (b != null && b.capacity() == size && free.size() < maxPooled) {
            free.offer(b.clear());
        }
    }
}
