package io.hostwide.blk;

/**
 * The elevator's back-merge hash ({@code elv_rqhash_*}): requests keyed by their
 * end offset, so a bio starting there finds the request it continues. Intrusive
 * chains through {@link Request#hashNext} in a power-of-two bucket array sized
 * for the scheduler depth; nothing is allocated per request. Guarded by the
 * owning scheduler's lock.
 */
final class RqHash {
    private Request[] buckets = new Request[64];
    private int mask = 63;

    /** Resizes for {@code depth} requests; only while empty (scheduler init / depth change). */
    void size(int depth) {
        int n = Integer.highestOneBit(Math.max(64, depth * 2 - 1)) << 1;
        buckets = new Request[n];
        mask = n - 1;
    }

    private int index(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h >>> 40) & mask;
    }

    void add(Request rq) {
        long key = rq.end();
        rq.hashKey = key;
        int i = index(key);
        rq.hashNext = buckets[i];
        buckets[i] = rq;
    }

    void remove(Request rq) {
        int i = index(rq.hashKey);
        Request prev = null;
        for (Request r = buckets[i]; r != null; prev = r, r = r.hashNext) {
            if (r == rq) {
                if (prev == null) {
                    buckets[i] = r.hashNext;
                } else {
                    prev.hashNext = r.hashNext;
                }
                rq.hashNext = null;
                return;
            }
        }
        throw new IllegalStateException("request not in the merge hash: " + rq);
    }

    /** A request ending exactly at {@code end} ({@code elv_rqhash_find}), or null. */
    Request find(long end) {
        for (Request r = buckets[index(end)]; r != null; r = r.hashNext) {
            if (r.hashKey == end) {
                return r;
            }
        }
        return null;
    }
}
