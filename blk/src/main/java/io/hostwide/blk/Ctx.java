package io.hostwide.blk;

/**
 * A software staging queue ({@code struct blk_mq_ctx}), the kernel's per-CPU queue.
 * Submitting threads are mapped to a ctx (a submission handle owns one); each ctx
 * maps to one hardware queue. Only the DEFAULT queue type exists here.
 */
public final class Ctx {
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

    synchronized int pending() {
        return rqList.size();
    }
}
