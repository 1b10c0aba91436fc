package io.hostwide.tcm.backstore.rbd;

import java.util.concurrent.TimeUnit;

/**
 * What a fenced RBD image (blocklisted, or its exclusive lock lost) does next while its client still has operations
 * in flight: it waits for them, since the old client can only be closed once they ended; but it waits a bounded
 * time, then abandons them with the old client (left open, never polled again) so that the image is reopened with
 * a new client. Operations that reached an OSD end by librados' op timeout; one waiting for the exclusive lock or
 * a monitor may never end, and without the bound the gateway would answer BUSY forever. Pure arithmetic on
 * {@link System#nanoTime()} values, apart from {@code RbdImage}'s poller, so that the bound is tested with a fake
 * clock.
 */
final class FencedDrain {
    /** What the poller does next. */
    enum Step {
        /** Operations are still in flight, within the bound: look again later. */
        WAIT,
        /** Operations are still in flight past the bound: leave them behind with the old client. */
        ABANDON,
        /** Nothing in flight: close the old client and open a new one. */
        REOPEN
    }

    private FencedDrain() {}

    /**
     * The bound: twice the op timeout (a write and the retry librados may make) plus 30 s (a monitor's answer, the
     * watch's own timeout), or 120 s when there is no op timeout ({@code op_timeout: 0}).
     */
    static long limitNanos(int opTimeoutSeconds) {
        return opTimeoutSeconds == 0 ? TimeUnit.SECONDS.toNanos(120)
                : TimeUnit.SECONDS.toNanos(2L * opTimeoutSeconds + 30);
    }

    /**
     * @param now      System.nanoTime() now
     * @param fencedAt System.nanoTime() when the fence was noted
     * @param inFlight operations of the fenced client not yet ended
     * @param limit    {@link #limitNanos}
     */
    static Step next(long now, long fencedAt, int inFlight, long limit) {
        if (inFlight <= 0) {
            return Step.REOPEN;
        }
        return now - fencedAt > limit ? Step.ABANDON : Step.WAIT; // a difference: nanoTime may wrap
    }
}
