package io.hostwide.sbitmap;

/**
 * A non-exclusive callback waiter (the kernel's {@code hctx->dispatch_wait}).
 * When bits are freed the queue removes the entry and calls {@link #wake()} on the
 * freeing thread; the callback must be short (e.g. schedule an asynchronous queue
 * run). One entry is queued on at most one queue at a time.
 */
public abstract class WaitEntry {
    /** Managed by the queue implementation; non-null while queued. */
    volatile Object queuedOn;

    /**
     * Managed by the queue implementation: links entries taken off a wait queue
     * by one wake-up, so their callbacks run after the queue's lock is released
     * without allocating a list.
     */
    WaitEntry nextFired;

    /** True while the entry is registered and has not fired. */
    public final boolean isQueued() {
        return queuedOn != null;
    }

    /** Called once per registration, after the entry has been removed from its queue. */
    protected abstract void wake();
}
