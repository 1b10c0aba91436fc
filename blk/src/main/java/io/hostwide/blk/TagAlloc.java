package io.hostwide.blk;

import io.hostwide.sbitmap.SbitmapQueue;
import io.hostwide.sbitmap.Sleeper;

import java.lang.invoke.VarHandle;

/**
 * Tag allocation and fair sharing (blk-mq-tag.c, digest §2.4, §2.7, §2.11):
 * {@code blk_mq_tag_busy/idle}, {@code hctx_may_queue}, {@code blk_mq_get_tag},
 * driver tags at dispatch and {@code blk_mq_mark_tag_wait}.
 */
final class TagAlloc {
    /** The fair share never drops below this many tags per active queue. */
    static final int MIN_FAIR_SHARE = 4;

    private TagAlloc() {
    }

    static boolean queueShared(Hctx h) {
        return (h.flags & TagSetFlags.TAG_QUEUE_SHARED) != 0;
    }

    /**
     * Whether fair sharing counts this hctx's queue as one user with its outstanding requests summed over all of
     * its hctxs: host-wide tags with change 1 of seed 001 in effect ({@link SharedTagModes#OUTSTANDING_PER_HCTX}
     * clear). Otherwise each hctx is a user counting only its own requests.
     */
    static boolean perQueue(Hctx h) {
        TagSet set = h.q.set;
        return set.hostTagset && !set.mode(SharedTagModes.OUTSTANDING_PER_HCTX);
    }

    /**
     * {@code blk_mq_tag_busy}: marks the hctx (or, with host-wide tags, the queue)
     * active on its first driver-tag use and counts it in {@code active_queues}.
     * A plain test precedes the RMW so the common case does not dirty the line.
     */
    static void tagBusy(Hctx h) {
        if (perQueue(h)) {
            if (h.q.isHctxActive() || h.q.testAndSetHctxActive()) {
                return;
            }
        } else if (h.testState(Hctx.S_TAG_ACTIVE) || h.testAndSetState(Hctx.S_TAG_ACTIVE)) {
            return;
        }
        h.tags.incActiveQueues();
    }

    /**
     * {@code blk_mq_tag_idle} without the wake-up: clears whichever active state is set (both kinds, so a
     * mode change under I/O cannot leak a user) and returns whether one was.
     */
    static boolean tagIdle(Hctx h) {
        boolean was = false;
        if (h.q.set.hostTagset && h.q.testAndClearHctxActive()) {
            h.tags.decActiveQueues();
            was = true;
        }
        if (h.testState(Hctx.S_TAG_ACTIVE) && h.testAndClearState(Hctx.S_TAG_ACTIVE)) {
            h.tags.decActiveQueues();
            was = true;
        }
        return was;
    }

    /**
     * {@code blk_mq_tag_idle} for every hctx of an idle queue, then {@code blk_mq_tag_wakeup_all} since the other
     * users' slices grew: once per tag space (change 3 of seed 001), or with
     * {@link SharedTagModes#WAKE_ALL_PER_HCTX} once for each hctx of the queue, as the RFC kernel did.
     */
    static void queueIdle(RequestQueue q) {
        boolean idled = false;
        for (Hctx h : q.hctxs) {
            idled |= tagIdle(h);
        }
        if (!idled) {
            return;
        }
        if (q.set.mode(SharedTagModes.WAKE_ALL_PER_HCTX)) {
            for (Hctx h : q.hctxs) {
                h.tags.wakeAll();
            }
        } else {
            for (Tags t : q.distinctDriverTags()) {
                t.wakeAll();
            }
        }
    }

    /** {@code hctx_may_queue}: allowed = max(ceil(depth / active_queues), 4). */
    static boolean mayQueue(Hctx h, SbitmapQueue bt) {
        if (!queueShared(h)) {
            return true;
        }
        RequestQueue q = h.q;
        if (perQueue(h)) {
            if (!q.isHctxActive()) {
                return true;
            }
        } else if (!h.testState(Hctx.S_TAG_ACTIVE)) {
            return true;
        }
        int depth = bt.depth();
        if (depth <= 1) {
            return true;
        }
        int users = h.tags.activeQueues();
        if (users == 0) {
            return true;
        }
        int allowed = Math.max((depth + users - 1) / users, MIN_FAIR_SHARE);
        return activeRequests(h) < allowed;
    }

    /** The outstanding count fair sharing compares for this hctx. */
    static int activeRequests(Hctx h) {
        return perQueue(h) ? h.q.nrActiveShared() : h.nrActive();
    }

    /** Counts a request in {@code nr_active} and returns the RQF bits that say where. */
    private static int incActive(Hctx h) {
        if (perQueue(h)) {
            h.q.addNrActiveShared(1);
            return Request.RQF_MQ_INFLIGHT | Request.RQF_MQ_INFLIGHT_Q;
        }
        h.addNrActive(1);
        return Request.RQF_MQ_INFLIGHT;
    }

    /** Undoes {@link #incActive} for a request with these {@code rqFlags} (RQF_MQ_INFLIGHT set). */
    static void decActive(Hctx h, int rqFlags) {
        if ((rqFlags & Request.RQF_MQ_INFLIGHT_Q) != 0) {
            h.q.addNrActiveShared(-1);
        } else {
            h.addNrActive(-1);
        }
    }

    /** One non-blocking attempt from the pool a new request comes from. */
    private static int tryGetTag(Hctx h, int hint, boolean reserved, boolean sched, int shallow) {
        Tags tags = sched ? h.schedTags : h.tags;
        if (reserved) {
            return tags.tryGet(true, hint);
        }
        // Fair share applies to driver tags only (RQF_SCHED_TAGS allocations skip it).
        if (!sched && !mayQueue(h, tags.bitmapTags)) {
            return -1;
        }
        return shallow > 0 ? tags.tryGetShallow(hint, shallow) : tags.tryGet(false, hint);
    }

    /**
     * {@code __blk_mq_alloc_requests} + {@code blk_mq_get_tag}: a request with a
     * scheduler tag (elevator) or a driver tag (none). Waits for a tag unless
     * {@code nowait}; returns null when none could be had (NOWAIT, or interrupted).
     */
    static Request allocRequest(Hctx h, Ctx ctx, int hint, ReqOp op, boolean reserved, boolean nowait,
                                TagWaiter waiter) {
        RequestQueue q = h.q;
        IoScheduler e = q.elevator;
        boolean sched = e != null;
        int shallow = sched && !reserved ? e.limitDepth(op) : 0;
        if (!sched && queueShared(h) && !reserved) {
            tagBusy(h);
        }
        int tag = tryGetTag(h, hint, reserved, sched, shallow);
        if (tag < 0) {
            if (nowait) {
                return null;
            }
            tag = waitForTag(h, hint, reserved, sched, shallow, waiter);
            if (tag < 0) {
                return null;
            }
        }
        Tags pool = sched ? h.schedTags : h.tags;
        Request rq = pool.staticRqs[tag];
        rq.q = q;
        rq.ctx = ctx;
        rq.allocHint = hint;
        rq.hctx = h;
        rq.rqFlags = reserved ? Request.RQF_RESERVED : 0;
        rq.budgetToken = -1;
        if (sched) {
            rq.internalTag = tag;
            rq.tag = -1;
            rq.rqFlags |= Request.RQF_SCHED_TAGS | Request.RQF_USE_SCHED;
        } else {
            rq.internalTag = -1;
            rq.tag = tag;
            if (queueShared(h) && !reserved) {
                rq.rqFlags |= incActive(h);
            }
        }
        return rq;
    }

    /**
     * The sleeping loop of {@code blk_mq_get_tag}: run the queue, retry ({@code __blk_mq_get_tag}, fair share
     * included), {@code sbitmap_prepare_to_wait} as an exclusive waiter, retry, sleep ({@code io_schedule}),
     * {@code sbitmap_finish_wait}, repeat. A wake-up this waiter takes but cannot use while bits are free (it
     * is over its fair share, or its shallow limit, or lost the bit to a hint race) is passed on to the next
     * exclusive waiter, which may be under its share. Returns -1 if interrupted (the flag stays set).
     */
    private static int waitForTag(Hctx h, int hint, boolean reserved, boolean sched, int shallow, TagWaiter waiter) {
        Tags tags = sched ? h.schedTags : h.tags;
        SbitmapQueue bt = tags.bitmapFor(reserved);
        if (bt == null) {
            return -1;   // no reserved tags configured
        }
        Sleeper wait = waiter.sleeper;
        boolean woken = false;
        for (;;) {
            // Our own plugged requests hold tags; then pending dispatches may free some.
            waiter.beforeSleep();
            Dispatcher.runHwQueue(h, false);
            int tag = tryGetTag(h, hint, reserved, sched, shallow);
            if (tag >= 0) {
                return tag;
            }
            if (woken) {
                woken = false;
                passOnUnusableWake(bt, wait);
            }
            bt.prepareToWait(wait, h.waitIndex);
            // Re-check after registering: a free between the last try and the
            // registration would otherwise be missed (sbitmap_prepare_to_wait bumped
            // ws_active first, so the freer either is seen here or sees us).
            tag = tryGetTag(h, hint, reserved, sched, shallow);
            if (tag >= 0) {
                bt.finishWait(wait);   // passes on a wake-up that raced in
                return tag;
            }
            h.q.tagSleeps.inc();   // statistics: the slow path, about to sleep anyway
            if (!wait.await()) {
                bt.finishWait(wait);   // interrupted: unlink, or pass on a wake-up that raced in
                return -1;
            }
            // sbitmap_finish_wait after io_schedule: the waker already unlinked us; nothing to pass on.
            bt.finishWait(wait);
            woken = true;
        }
    }

    /**
     * A woken waiter failed its retry. If the bitmap has free bits the wake-up was not spent on a bit (this
     * waiter's own checks refused it), so it goes to the next exclusive waiter; if the bitmap is full another
     * allocator got the freed bit and its completion will wake again, as in the kernel.
     */
    private static void passOnUnusableWake(SbitmapQueue bt, Sleeper wait) {
        if (bt.busy() < bt.depth()) {
            bt.passWakeOn(wait);
        }
    }

    /**
     * {@code blk_mq_get_driver_tag}: a request from the scheduler gets its driver
     * tag here (fair share applies); every request is published in {@code rqs[]}.
     */
    static boolean getDriverTag(Request rq) {
        Hctx h = rq.hctx;
        if (rq.tag < 0) {
            boolean reserved = (rq.rqFlags & Request.RQF_RESERVED) != 0;
            boolean shared = queueShared(h);
            int hint = rq.allocHint;
            int tag;
            if (reserved) {
                tag = h.tags.tryGet(true, hint);
            } else {
                if (shared) {
                    tagBusy(h);
                }
                if (!mayQueue(h, h.tags.bitmapTags)) {
                    return false;
                }
                tag = h.tags.tryGet(false, hint);
            }
            if (tag < 0) {
                return false;
            }
            rq.tag = tag;
            if (shared && !reserved) {
                rq.rqFlags |= incActive(h);
            }
        }
        h.tags.setRq(rq.tag, rq);
        return true;
    }

    /** {@code blk_mq_put_driver_tag}: only a request that also holds a scheduler tag gives its driver tag back early. */
    static void putDriverTag(Request rq) {
        if (rq.tag < 0 || rq.internalTag < 0) {
            return;
        }
        releaseDriverTag(rq);
    }

    /** Gives the driver tag back, undoing the nr_active count. */
    static void releaseDriverTag(Request rq) {
        Hctx h = rq.hctx;
        int tag = rq.tag;
        rq.tag = -1;
        if ((rq.rqFlags & Request.RQF_MQ_INFLIGHT) != 0) {
            decActive(h, rq.rqFlags);
            rq.rqFlags &= ~(Request.RQF_MQ_INFLIGHT | Request.RQF_MQ_INFLIGHT_Q);
        }
        h.tags.put(tag, rq.allocHint);
    }

    /**
     * {@code blk_mq_mark_tag_wait}. Unshared tags: set SCHED_RESTART (a completion
     * on this hctx re-runs it) and retry once. Shared tags (another queue, or with
     * host-wide tags another hctx, may free the tag): queue the non-exclusive
     * {@code dispatch_wait} entry on the bitmap, then retry, so a tag freed
     * anywhere re-runs this hctx (Kemeng Shi's fix for host-wide tags).
     */
    static boolean markTagWait(Hctx h, Request rq) {
        if (!queueShared(h) && !h.q.set.hostTagset) {
            Dispatcher.markRestart(h);
            return getDriverTag(rq);
        }
        if (h.dispatchWait.isQueued()) {
            return false;
        }
        SbitmapQueue sbq = h.tags.bitmapFor((rq.rqFlags & Request.RQF_RESERVED) != 0);
        h.dispatchWaitOn = sbq;
        if (!sbq.addWaitQueue(h.dispatchWait, h.waitIndex)) {
            return false;   // another dispatcher of this hctx queued it first
        }
        // Full barrier: orders the registration before the re-check; pairs with
        // the barrier in the bitmap's wake-up path after a bit is cleared.
        VarHandle.fullFence();
        if (!getDriverTag(rq)) {
            return false;
        }
        sbq.removeWaitQueue(h.dispatchWait);
        return true;
    }
}
