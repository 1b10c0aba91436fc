package io.hostwide.blk;

import io.hostwide.sbitmap.WaitEntry;

import java.util.concurrent.locks.LockSupport;

/**
 * A submitting thread's wait entry for a tag ({@code prepare_to_wait} in
 * {@code blk_mq_get_tag}). Registered non-exclusively because the fair-share check
 * runs after the bitmap hands out a bit, so the waiter must re-check itself after
 * every wake-up. One per submission handle; never shared between threads.
 */
final class TagWaiter extends WaitEntry {
    private volatile Thread owner;
    /** Sends the owner's plugged requests before it sleeps (the kernel flushes the plug in schedule()). */
    private final Runnable flushPlug;

    TagWaiter(Runnable flushPlug) {
        this.flushPlug = flushPlug;
    }

    /** Called before sleeping for a tag: plugged requests hold tags, so they must go out first. */
    void beforeSleep() {
        flushPlug.run();
    }

    void arm() {
        owner = Thread.currentThread();
    }

    @Override
    protected void wake() {
        Thread t = owner;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }
}
