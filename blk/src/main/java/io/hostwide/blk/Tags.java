package io.hostwide.blk;

import io.hostwide.sbitmap.SbitmapConfig;
import io.hostwide.sbitmap.SbitmapQueue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One tag space ({@code struct blk_mq_tags}): a normal and a reserved
 * {@link SbitmapQueue}, the static request pool (one preallocated {@link Request}
 * per tag), {@code rqs[]} (driver tag → request in flight) and
 * {@code active_queues} for fair sharing. Reserved tags are 0..r-1; a normal tag is
 * its bit + r.
 */
public final class Tags {
    private static final VarHandle RQS = MethodHandles.arrayElementVarHandle(Request[].class);
    private static final VarHandle ACTIVE;

    static {
        try {
            ACTIVE = MethodHandles.lookup().findVarHandle(Tags.class, "activeQueues", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final int nrTags;
    final int nrReservedTags;
    final SbitmapQueue bitmapTags;
    /** Null when there are no reserved tags. */
    final SbitmapQueue breservedTags;
    final Request[] staticRqs;
    private final Request[] rqs;
    /** Guarded by {@code this} for writes; read lock-free (acquire) by hctx_may_queue. */
    @SuppressWarnings("unused")
    private int activeQueues;
    /** {@code blk_mq_tag_wakeup_all} calls, for tests and the lab (rare path: a plain counter under {@code this}). */
    private long wakeAllCalls;

    /** Allocates both bitmaps and one request per tag; {@code nrHints} alloc-hint slots (one per submitter). */
    Tags(int nrTags, int nrReservedTags, int nrHints, boolean roundRobin) {
        this.nrTags = nrTags;
        this.nrReservedTags = nrReservedTags;
        this.bitmapTags = Sbitmaps.create(SbitmapConfig.of(nrTags - nrReservedTags, nrHints).withRoundRobin(roundRobin));
        this.breservedTags = nrReservedTags == 0 ? null
                : Sbitmaps.create(SbitmapConfig.of(nrReservedTags, nrHints).withRoundRobin(roundRobin));
        this.staticRqs = new Request[nrTags];
        this.rqs = new Request[nrTags];
        for (int t = 0; t < nrTags; t++) {
            staticRqs[t] = new Request(this, t);
        }
    }

    public int nrTags() {
        return nrTags;
    }

    public int nrReservedTags() {
        return nrReservedTags;
    }

    /** Claims a tag without waiting; -1 if none. */
    int tryGet(boolean reserved, int hint) {
        if (reserved) {
            return breservedTags == null ? -1 : breservedTags.get(hint);
        }
        int bit = bitmapTags.get(hint);
        return bit < 0 ? -1 : bit + nrReservedTags;
    }

    /** Claims a normal tag below {@code shallowDepth} bits (scheduler {@code limit_depth}). */
    int tryGetShallow(int hint, int shallowDepth) {
        int bit = bitmapTags.getShallow(hint, shallowDepth);
        return bit < 0 ? -1 : bit + nrReservedTags;
    }

    /** {@code blk_mq_put_tag}. */
    void put(int tag, int hint) {
        if (tag < nrReservedTags) {
            breservedTags.clear(tag, hint);
        } else {
            bitmapTags.clear(tag - nrReservedTags, hint);
        }
    }

    boolean isReserved(int tag) {
        return tag < nrReservedTags;
    }

    SbitmapQueue bitmapFor(boolean reserved) {
        return reserved ? breservedTags : bitmapTags;
    }

    /**
     * Publishes {@code rq} as the holder of driver tag {@code tag}; the release pairs with the acquire in
     * {@link #rqAt}. Without a scheduler the holder of driver tag t is always {@code staticRqs[t]}, so the slot
     * nearly always holds {@code rq} already: the store is skipped then. With host-wide tags every hctx writes
     * this one array, and a store (even of the same value) dirties the slot's line and, through the GC's card
     * mark, a card-table byte that covers 128 neighbouring slots, which two submitters on different hctxs then
     * bounce between their cores on every request. Skipping is safe: a reader sees the same reference either
     * way, and what it reads through it is published by the request's state (the release in
     * {@link Request#start} paired with the reader's {@link Request#stateAcquire}), never by this slot.
     */
    void setRq(int tag, Request rq) {
        if (RQS.getOpaque(rqs, tag) != rq) {
            RQS.setRelease(rqs, tag, rq);
        }
    }

    /** {@code blk_mq_tag_to_rq}: the request last given driver tag {@code tag} (check its state). */
    public Request rqAt(int tag) {
        return (Request) RQS.getAcquire(rqs, tag);
    }

    /** Users of a shared tag space, for fair sharing. */
    public int activeQueues() {
        return (int) ACTIVE.getAcquire(this);
    }

    /** {@code blk_mq_tag_busy} bookkeeping: caller won the per-hctx/per-queue active flag. */
    void incActiveQueues() {
        int users;
        synchronized (this) {
            users = activeQueues() + 1;
            ACTIVE.setRelease(this, users);   // pairs with the acquire in activeQueues()
        }
        bitmapTags.recalculateWakeBatch(users);
    }

    /** {@code blk_mq_tag_idle} bookkeeping: one sharer fewer; the caller wakes the waiters ({@link #wakeAll}). */
    void decActiveQueues() {
        int users;
        synchronized (this) {
            users = Math.max(0, activeQueues() - 1);
            ACTIVE.setRelease(this, users);
        }
        bitmapTags.recalculateWakeBatch(Math.max(users, 1));
    }

    /** {@code blk_mq_tag_wakeup_all}: the slices grew, so every waiter re-checks. */
    void wakeAll() {
        synchronized (this) {
            wakeAllCalls++;
        }
        bitmapTags.wakeAll();
        if (breservedTags != null) {
            breservedTags.wakeAll();
        }
    }

    /** How many times {@link #wakeAll} ran (seed 001's third change counts these). */
    public synchronized long wakeAllCalls() {
        return wakeAllCalls;
    }

    /** Tags held now, reserved and normal. */
    public int busy() {
        return bitmapTags.busy() + (breservedTags == null ? 0 : breservedTags.busy());
    }
}
