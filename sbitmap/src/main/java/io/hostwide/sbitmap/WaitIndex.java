package io.hostwide.sbitmap;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A caller's rotating choice of wait queue ({@code hctx->wait_index}): bumped on
 * every use so successive waits of one caller spread over the eight queues.
 */
public final class WaitIndex {
    private final AtomicInteger next = new AtomicInteger();

    /** The queue to use for this wait, advancing the index. */
    public int nextQueue() {
        return next.getAndIncrement() & (SbitmapQueue.WAIT_QUEUES - 1);
    }
}
