package io.hostwide.blk;

/**
 * mq-deadline's sector-sorted tree ({@code sort_list}, an rb-tree in the kernel),
 * here an intrusive treap linked through {@link Request#sortLeft} /
 * {@link Request#sortRight}: no node allocation, expected O(log n) per operation.
 * Keyed by (start offset, {@link Request#slotId}) so equal starts coexist. A
 * request's offset must not change while it is in the tree (remove, change,
 * re-insert). Guarded by the owning scheduler's lock.
 */
final class SortTree {
    private Request root;
    private int size;

    int size() {
        return size;
    }

    boolean isEmpty() {
        return root == null;
    }

    void insert(Request rq) {
        rq.sortLeft = null;
        rq.sortRight = null;
        root = insert(root, rq);
        size++;
    }

    private static Request insert(Request t, Request rq) {
        if (t == null) {
            return rq;
        }
        if (less(rq, t)) {
            t.sortLeft = insert(t.sortLeft, rq);
            if (t.sortLeft.sortPrio > t.sortPrio) {
                t = rotateRight(t);
            }
        } else {
            t.sortRight = insert(t.sortRight, rq);
            if (t.sortRight.sortPrio > t.sortPrio) {
                t = rotateLeft(t);
            }
        }
        return t;
    }

    void remove(Request rq) {
        root = remove(root, rq);
        rq.sortLeft = null;
        rq.sortRight = null;
        size--;
    }

    private static Request remove(Request t, Request rq) {
        if (t == null) {
            throw new IllegalStateException("request not in the sort tree: " + rq);
        }
        if (t == rq) {
            return join(t.sortLeft, t.sortRight);
        }
        if (less(rq, t)) {
            t.sortLeft = remove(t.sortLeft, rq);
        } else {
            t.sortRight = remove(t.sortRight, rq);
        }
        return t;
    }

    /** Joins two treaps where every key of {@code a} is below every key of {@code b}. */
    private static Request join(Request a, Request b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        if (a.sortPrio > b.sortPrio) {
            a.sortRight = join(a.sortRight, b);
            return a;
        }
        b.sortLeft = join(a, b.sortLeft);
        return b;
    }

    private static Request rotateRight(Request t) {
        Request l = t.sortLeft;
        t.sortLeft = l.sortRight;
        l.sortRight = t;
        return l;
    }

    private static Request rotateLeft(Request t) {
        Request r = t.sortRight;
        t.sortRight = r.sortLeft;
        r.sortLeft = t;
        return r;
    }

    private static boolean less(Request a, Request b) {
        return a.offset < b.offset || (a.offset == b.offset && a.slotId < b.slotId);
    }

    /** The lowest request starting at or after {@code pos} ({@code deadline_from_pos}), or null. */
    Request ceiling(long pos) {
        Request best = null;
        for (Request t = root; t != null; ) {
            if (t.offset >= pos) {
                best = t;
                t = t.sortLeft;
            } else {
                t = t.sortRight;
            }
        }
        return best;
    }

    /** A request starting exactly at {@code pos} ({@code elv_rb_find}), or null. */
    Request find(long pos) {
        Request c = ceiling(pos);
        return c != null && c.offset == pos ? c : null;
    }

    /** The next request in sort order ({@code elv_rb_latter_request}), or null. */
    Request next(Request rq) {
        Request best = null;
        for (Request t = root; t != null; ) {
            if (less(rq, t)) {
                best = t;
                t = t.sortLeft;
            } else {
                t = t.sortRight;
            }
        }
        return best;
    }

    /** The previous request in sort order ({@code elv_rb_former_request}), or null. */
    Request prev(Request rq) {
        Request best = null;
        for (Request t = root; t != null; ) {
            if (less(t, rq)) {
                best = t;
                t = t.sortRight;
            } else {
                t = t.sortLeft;
            }
        }
        return best;
    }

    Request first() {
        Request t = root;
        if (t == null) {
            return null;
        }
        while (t.sortLeft != null) {
            t = t.sortLeft;
        }
        return t;
    }
}
