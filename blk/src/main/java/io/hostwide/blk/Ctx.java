package io.hostwide.blk;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A software staging queue ({@code struct blk_mq_ctx}), the kernel's per-CPU queue.
 * Submitting threads are mapped to a ctx (a submission handle owns one); each ctx
 * maps to one hardware queue. Only the DEFAULT queue type exists here.
 *
 * <p>The fields its submitter writes on every I/O (the {@code q_usage_counter} share and the per-ctx
 * statistics, as the kernel keeps {@code rq_dispatched}/{@code rq_completed} per ctx) sit between two
 * 128-byte pads ({@link CtxPadBefore}, {@link CtxPadAfter}): the ctxs of a queue are allocated one after
 * another, and without the pads two submitters on neighbouring ctxs would bounce one cache line on every
 * I/O.
 */
public final class Ctx extends CtxPadAfter {
    private static final VarHandle USAGE;
    private static final VarHandle QUEUED;
    private static final VarHandle DISPATCHED;
    private static final VarHandle COMPLETED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            USAGE = l.findVarHandle(CtxHotFields.class, "usage", int.class);
            QUEUED = l.findVarHandle(CtxHotFields.class, "queued", long.class);
            DISPATCHED = l.findVarHandle(CtxHotFields.class, "dispatched", long.class);
            COMPLETED = l.findVarHandle(CtxHotFields.class, "completed", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Merge candidates looked at from the tail of the list ({@code blk_bio_list_merge}). */
    static final int LIST_MERGE_DEPTH = 8;

    final int index;
    final RequestQueue q;
    final Hctx hctx;
    /** This ctx's bit in {@link Hctx}'s ctx_map ({@code index_hw}). */
    final int indexHw;
    /** Pending requests; guarded by {@code this}. */
    final RqList rqList = new RqList();

    Ctx(int index, RequestQueue q, Hctx hctx, int indexHw) {
        this.index = index;
        this.q = q;
        this.hctx = hctx;
        this.indexHw = indexHw;
    }

    public int index() {
        return index;
    }

    public Hctx hctx() {
        return hctx;
    }

    /** This ctx's position among its hctx's ctxs ({@code index_hw}), 0 .. {@link Hctx#nrCtx()} - 1. */
    public int indexHw() {
        return indexHw;
    }

    /** Appends (or prepends) and marks the ctx pending in its hctx's ctx_map. */
    void insert(Request rq, boolean atHead) {
        synchronized (this) {
            if (atHead) {
                rqList.addHead(rq);
            } else {
                rqList.addTail(rq);
            }
            hctx.markCtxPending(indexHw);
        }
    }

    /** Takes one request, clearing the ctx_map bit when the list drains. */
    Request dequeue() {
        synchronized (this) {
            Request rq = rqList.pollFirst();
            if (rqList.isEmpty()) {
                hctx.clearCtxPending(indexHw);
            }
            return rq;
        }
    }

    /** Moves everything to {@code out} ({@code flush_busy_ctx}). */
    void flushTo(RqList out) {
        synchronized (this) {
            out.spliceTail(rqList);
            hctx.clearCtxPending(indexHw);
        }
    }

    /**
     * {@code blk_queue_enter}'s count: a full-fence RMW, so the caller's following
     * read of the freeze flag cannot move above it; pairs with the freezer's write of
     * the flag before it reads {@link #usage()}.
     */
    void enterQueue() {
        USAGE.getAndAdd(this, 1);
    }

    /** {@code blk_queue_exit}; release so everything done inside is visible to the freezer's acquire read. */
    void exitQueue() {
        USAGE.getAndAddRelease(this, -1);
    }

    int usage() {
        return (int) USAGE.getAcquire(this);
    }

    // Statistics (debugfs ctx "queued"/"dispatched"/"completed"): atomic adds on this ctx's own line, which
    // only its submitter (and completions on its thread) usually touch; opaque reads, no ordering needed.

    /** A request was allocated on this ctx (summed into its hctx's {@code queued}). */
    void countQueued() {
        QUEUED.getAndAdd(this, 1L);
    }

    /** A request of this ctx was issued directly (summed into its hctx's {@code dispatched}). */
    void countDispatched() {
        DISPATCHED.getAndAdd(this, 1L);
    }

    /** {@code n} requests of this queue completed (summed into the queue's {@code completed}). */
    void countCompleted(long n) {
        COMPLETED.getAndAdd(this, n);
    }

    long queued() {
        return (long) QUEUED.getOpaque(this);
    }

    long dispatched() {
        return (long) DISPATCHED.getOpaque(this);
    }

    long completed() {
        return (long) COMPLETED.getOpaque(this);
    }

    /**
     * {@code blk_bio_list_merge} without a scheduler: {@code bio} merges into one of
     * the last {@link #LIST_MERGE_DEPTH} requests waiting here. The cheap ctx_map
     * test first keeps the lock off the path while nothing waits (the usual case).
     */
    boolean bioMerge(Bio bio) {
        if (!hctx.isCtxPending(indexHw)) {
            return false;
        }
        synchronized (this) {
            int skip = rqList.size() - LIST_MERGE_DEPTH;
            Request hit = null;
            int where = Merge.NONE;
            int i = 0;
            // Newest first in the kernel; on a singly linked list the last match wins, which is the newest.
            for (Request rq = rqList.peekFirst(); rq != null; rq = rq.next, i++) {
                if (i < skip) {
                    continue;
                }
                int w = Merge.tryMerge(rq, bio);
                if (w != Merge.NONE) {
                    hit = rq;
                    where = w;
                }
            }
            if (hit == null) {
                return false;
            }
            Merge.apply(hit, bio, where);
            return true;
        }
    }

    synchronized int pending() {
        return rqList.size();
    }
}

/** 128 bytes ahead of a ctx's hot fields (two cache lines: the adjacent-line prefetcher pairs them). */
abstract class CtxPadBefore {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/** The fields a ctx's submitter writes on every I/O; see {@link Ctx}. */
abstract class CtxHotFields extends CtxPadBefore {
    /** Submitters of this ctx inside the queue (this ctx's share of {@code q_usage_counter}). */
    @SuppressWarnings("unused") volatile int usage;
    @SuppressWarnings("unused") volatile long queued;
    @SuppressWarnings("unused") volatile long dispatched;
    @SuppressWarnings("unused") volatile long completed;
}

/** 128 bytes behind a ctx's hot fields. */
abstract class CtxPadAfter extends CtxHotFields {
    long q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;
}
