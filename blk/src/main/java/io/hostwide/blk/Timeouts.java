package io.hostwide.blk;

import io.hostwide.blk.exec.DelayedWork;

/**
 * Request timeouts of one queue (block/blk-timeout.c, digest §2.13): one timer per
 * queue, expiry rounded up to a whole second, at most {@link #MAX_TIMEOUT_NANOS}
 * ahead, only pulled earlier by half a second or more. The timer work scans the
 * queue's driver tags, calls the driver for expired requests, re-arms for the
 * next deadline, and marks every hctx tag-idle when nothing is in flight.
 */
final class Timeouts {
    /** {@code BLK_MAX_TIMEOUT}. */
    static final long MAX_TIMEOUT_NANOS = 5_000_000_000L;
    private static final long SECOND = 1_000_000_000L;
    private static final long HALF_SECOND = SECOND / 2;

    private final RequestQueue q;
    private final DelayedWork timer;
    /** Expiry of the armed timer, 0 when not armed; read lock-free on every request start. */
    private volatile long armedExpiry;

    Timeouts(RequestQueue q) {
        this.q = q;
        this.timer = q.kblockd.newWork(q.name + "/timeout", this::timeoutWork);
    }

    /** {@code blk_add_timer}. */
    void addTimer(long deadline) {
        long expiry = roundUp(deadline);
        long armed = armedExpiry;
        if (armed != 0 && expiry > armed - HALF_SECOND) {
            return;   // hot path: the armed timer fires early enough
        }
        long now = q.kblockd.nanoTime();
        expiry = Math.min(expiry, now + MAX_TIMEOUT_NANOS);
        synchronized (this) {
            armed = armedExpiry;
            if (armed == 0 || expiry <= armed - HALF_SECOND) {
                armedExpiry = expiry;
                timer.mod(expiry - now);
            }
        }
    }

    void cancel() {
        synchronized (this) {
            armedExpiry = 0;
            timer.cancel();
        }
    }

    /** {@code blk_mq_timeout_work}. */
    void timeoutWork() {
        synchronized (this) {
            armedExpiry = 0;   // any start from here on re-arms
        }
        long now = q.kblockd.nanoTime();
        long next = Long.MAX_VALUE;
        boolean inFlight = false;
        boolean synced = false;
        BlkMqOps ops = q.set.ops;
        for (Tags tags : q.distinctDriverTags()) {
            for (int tag = 0; tag < tags.nrTags; tag++) {
                Request rq = tags.rqAt(tag);
                if (rq == null) {
                    continue;
                }
                // State first (acquire), then the owner: start() wrote q before its release
                // store. A newer use after this read has another generation, so the
                // markTimedOut CAS below fails for it.
                int s = rq.stateAcquire();
                if ((s & Request.STATE_MASK) != Request.IN_FLIGHT || rq.q != q) {
                    continue;
                }
                inFlight = true;
                if ((s & Request.TIMED_OUT) != 0) {
                    continue;
                }
                long deadline = rq.deadline;   // published by start()'s release store, read after the acquire above
                if (now - deadline < 0) {
                    next = Math.min(next, deadline);
                } else if (rq.markTimedOut(s)) {
                    if (!synced) {
                        // Wait for queue_rq calls in progress (one may still be issuing this
                        // request) before the driver's handler sees it: synchronize_rcu/srcu.
                        for (Hctx h : q.hctxs) {
                            h.synchronizeDispatch();
                        }
                        synced = true;
                    }
                    expire(ops, rq, now);
                }
            }
        }
        if (next != Long.MAX_VALUE) {
            addTimer(next);
        } else if (!inFlight) {
            TagAlloc.queueIdle(q);
        }
    }

    private void expire(BlkMqOps ops, Request rq, long now) {
        q.timeoutsFired.inc();
        TimeoutAction action = ops.timeout(rq);
        if (action == TimeoutAction.RESET_TIMER) {
            rq.deadline = now + rq.timeoutNanos;
            rq.clearTimedOut();   // release CAS publishes the new deadline
            addTimer(rq.deadline);
        }
    }

    private static long roundUp(long t) {
        return Math.floorDiv(t + SECOND - 1, SECOND) * SECOND;
    }
}
