package io.hostwide.blk;

/**
 * Per-thread scratch for the callbacks of a merged request's bios, so they can be
 * called after the request's slot is freed without allocating. A nested use on the
 * same thread (a callback that breaks the "do not submit" rule and completes
 * inline) gets a fresh instance instead of overwriting the outer one.
 */
final class SegmentCallbacks {
    private static final ThreadLocal<SegmentCallbacks> CACHE = ThreadLocal.withInitial(SegmentCallbacks::new);

    private final IoCallback[] cbs = new IoCallback[Request.MAX_SEGMENTS];
    private final long[] uds = new long[Request.MAX_SEGMENTS];
    private int n;
    private boolean inUse;

    static SegmentCallbacks acquire() {
        SegmentCallbacks s = CACHE.get();
        return s.inUse ? new SegmentCallbacks() : s;
    }

    /** Copies every segment's callback and user data, in device order. */
    void takeFrom(Request rq) {
        inUse = true;
        cbs[0] = rq.callback;
        uds[0] = rq.userData;
        int segs = rq.nrSegs;
        for (int i = 1; i < segs; i++) {
            cbs[i] = rq.segCb[i - 1];
            uds[i] = rq.segUd[i - 1];
        }
        n = segs;
    }

    /** Calls each once with {@code status}; a throwing callback does not stop the others. */
    void callAll(BlkStatus status) {
        RuntimeException first = null;
        try {
            for (int i = 0; i < n; i++) {
                IoCallback cb = cbs[i];
                cbs[i] = null;
                try {
                    cb.onComplete(uds[i], status);
                } catch (RuntimeException e) {
                    if (first == null) {
                        first = e;
                    }
                }
            }
        } finally {
            n = 0;
            inUse = false;
        }
        if (first != null) {
            throw first;
        }
    }
}
