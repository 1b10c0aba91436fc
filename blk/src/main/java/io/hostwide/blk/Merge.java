package io.hostwide.blk;

import java.nio.ByteBuffer;

/**
 * Request merging (block/blk-merge.c, digest §2.8): which requests may take a bio
 * or another request, back and front merges into the request's segment arrays,
 * and the merge counters. Callers hold whatever lock guards the list the request
 * sits in (plug: owner thread; ctx list: the ctx lock; scheduler: its lock).
 */
final class Merge {
    static final int NONE = 0;
    /** The bio continues the request ({@code ELEVATOR_BACK_MERGE}). */
    static final int BACK = 1;
    /** The bio ends where the request starts ({@code ELEVATOR_FRONT_MERGE}). */
    static final int FRONT = 2;

    /** Requests of these kinds never merge ({@code RQF_NOMERGE_FLAGS} plus reserved driver-internal ones). */
    private static final int NOMERGE_FLAGS = Request.RQF_STARTED | Request.RQF_DONTPREP | Request.RQF_RESERVED;

    private Merge() {
    }

    /** {@code rq_mergeable}: a data request nobody has started. */
    static boolean rqMergeable(Request rq) {
        // REQ_NOMERGE_FLAGS: FUA and flush-sequenced requests keep their own boundaries.
        return rq.op.hasData() && rq.passthrough == null && (rq.rqFlags & NOMERGE_FLAGS) == 0 && rq.cmdFlags == 0 && rq.flushSeq == 0;
    }

    /** {@code blk_rq_merge_ok} + {@code blk_try_merge}: where {@code bio} would go on {@code rq}, or NONE. */
    static int tryMerge(Request rq, Bio bio) {
        if (rq.op != bio.op || !rqMergeable(rq)
                || !fits(rq.q, rq.nrSegs + 1, rq.nrPhysSegs + Split.physSegments(rq.q, bio.length),
                (long) rq.length + bio.length)) {
            return NONE;
        }
        if (rq.offset + rq.length == bio.offset) {
            return BACK;
        }
        if (bio.offset + bio.length == rq.offset) {
            return FRONT;
        }
        return NONE;
    }

    /**
     * {@code ll_new_hw_segment} and {@code max_sectors}: the merged request carries at most
     * {@link Request#MAX_SEGMENTS} bios, at most {@code max_segments} physical segments and at most
     * {@code max_sectors}.
     */
    private static boolean fits(RequestQueue q, int bios, int physSegs, long bytes) {
        return bios <= Request.MAX_SEGMENTS && physSegs <= q.limits.maxSegments && bytes <= q.limits.maxSectors * 512L;
    }

    /** Merges {@code bio} into {@code rq} on the side {@link #tryMerge} returned and counts it. */
    static void apply(Request rq, Bio bio, int where) {
        if (where == BACK) {
            appendSegment(rq, bio.buf, bio.length, bio.cb, bio.userData);
        } else {
            prependSegment(rq, bio);
        }
        count(rq.q, rq.op);
    }

    /**
     * {@code blk_attempt_req_merge}: {@code next} (which must start where {@code rq}
     * ends) joins {@code rq}; its segments and callbacks move over and the caller
     * frees {@code next}'s slot without calling anyone. Returns false when it may not.
     */
    static boolean requests(Request rq, Request next) {
        if (rq.op != next.op || !rqMergeable(rq) || !rqMergeable(next) || rq.end() != next.offset
                || !fits(rq.q, rq.nrSegs + next.nrSegs, rq.nrPhysSegs + next.nrPhysSegs, (long) rq.length + next.length)) {
            return false;
        }
        appendSegment(rq, next.buffer, next.seg0Len, next.callback, next.userData);
        for (int i = 0; i < next.nrSegs - 1; i++) {
            appendSegment(rq, next.segBuf[i], next.segLen[i], next.segCb[i], next.segUd[i]);
            next.segBuf[i] = null;
            next.segCb[i] = null;
        }
        next.nrSegs = 1;
        next.callback = null;
        next.buffer = null;
        count(rq.q, rq.op);
        return true;
    }

    private static void appendSegment(Request rq, ByteBuffer buf, int len, IoCallback cb, long ud) {
        ensureArrays(rq);
        int i = rq.nrSegs - 1;
        rq.segBuf[i] = buf;
        rq.segLen[i] = len;
        rq.segCb[i] = cb;
        rq.segUd[i] = ud;
        rq.nrSegs++;
        rq.nrPhysSegs += Split.physSegments(rq.q, len);
        rq.length += len;
    }

    /** Front merge: the bio becomes segment 0 and the old segment 0 shifts to index 1. */
    private static void prependSegment(Request rq, Bio bio) {
        ensureArrays(rq);
        int extra = rq.nrSegs - 1;
        System.arraycopy(rq.segBuf, 0, rq.segBuf, 1, extra);
        System.arraycopy(rq.segLen, 0, rq.segLen, 1, extra);
        System.arraycopy(rq.segCb, 0, rq.segCb, 1, extra);
        System.arraycopy(rq.segUd, 0, rq.segUd, 1, extra);
        rq.segBuf[0] = rq.buffer;
        rq.segLen[0] = rq.seg0Len;
        rq.segCb[0] = rq.callback;
        rq.segUd[0] = rq.userData;
        rq.buffer = bio.buf;
        rq.seg0Len = bio.length;
        rq.callback = bio.cb;
        rq.userData = bio.userData;
        rq.offset = bio.offset;
        rq.length += bio.length;
        rq.nrSegs++;
        rq.nrPhysSegs += Split.physSegments(rq.q, bio.length);
    }

    /** The slot's segment arrays, made on its first merge and reused by every later use of the slot. */
    private static void ensureArrays(Request rq) {
        if (rq.segBuf == null) {
            int n = Request.MAX_SEGMENTS - 1;
            rq.segBuf = new ByteBuffer[n];
            rq.segLen = new int[n];
            rq.segCb = new IoCallback[n];
            rq.segUd = new long[n];
        }
    }

    private static void count(RequestQueue q, ReqOp op) {
        (op == ReqOp.READ ? q.readMerges : q.writeMerges).inc();
    }

    /** Drops the extra segments' references when a slot is freed (segment 0 is cleared by the caller). */
    static void clearSegments(Request rq) {
        for (int i = 0; i < rq.nrSegs - 1; i++) {
            rq.segBuf[i] = null;
            rq.segCb[i] = null;
        }
        rq.nrSegs = 1;
    }
}
