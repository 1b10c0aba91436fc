package io.hostwide.blk;

import io.hostwide.sbitmap.Sleeper;

/**
 * A submitting thread's wait for a tag: the {@code DEFINE_SBQ_WAIT(wait)} of {@code blk_mq_get_tag}, an
 * exclusive {@link Sleeper} (woken {@code wake_batch} at a time, not the whole herd), plus the plug flush the
 * kernel does in {@code io_schedule}. One per submission handle; never shared between threads.
 *
 * <p>The fair-share check ({@code hctx_may_queue}) runs in {@code __blk_mq_get_tag} before the bitmap is
 * tried, so a woken waiter can fail it with bits free and take a wake-up another waiter could have used. The
 * kernel lives with that (the over-share queue has requests in flight whose completions wake again); here
 * such a waiter also passes the wake-up on ({@link TagAlloc}), so it never strands the others.
 */
final class TagWaiter {
    final Sleeper sleeper = new Sleeper();
    /** Sends the owner's plugged requests before it sleeps (the kernel flushes the plug in schedule()). */
    private final Runnable flushPlug;

    TagWaiter(Runnable flushPlug) {
        this.flushPlug = flushPlug;
    }

    /** Called before sleeping for a tag: plugged requests hold tags, so they must go out first. */
    void beforeSleep() {
        flushPlug.run();
    }
}
