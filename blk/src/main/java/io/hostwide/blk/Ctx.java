package io.hostwide.blk;

/**
 * A software staging queue ({@code struct blk_mq_ctx}), the kernel's per-CPU queue.
 * Submitting threads are mapped to a ctx (a submission handle owns one); each ctx
 * maps to one hardware queue. Only the DEFAULT queue type exists here.
 */
public final class Ctx {
    private static final java.lang.invoke.VarHandle USAGE;

    static {
        try {
            USAGE = java.lang.invoke.MethodHandles.lookup().findVarHandle(Ctx.class, "usage", int.class);
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
    /** Submitters of this ctx inside the queue (this ctx's share of {@code q_usage_counter}). */
    @SuppressWarnings("unused") private volatile int usage;

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
