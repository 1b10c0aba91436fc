package io.hostwide.blk;

/**
 * mq-deadline's arrival-order list ({@code fifo_list}), intrusive and doubly linked
 * through {@link Request#fifoPrev} / {@link Request#fifoNext} so a request can
 * leave from the middle when it is dispatched in sector order or merged away.
 * Guarded by the owning scheduler's lock.
 */
final class FifoList {
    private Request head;
    private Request tail;
    private int size;

    boolean isEmpty() {
        return head == null;
    }

    int size() {
        return size;
    }

    Request peekFirst() {
        return head;
    }

    void addTail(Request rq) {
        rq.fifoNext = null;
        rq.fifoPrev = tail;
        if (tail == null) {
            head = rq;
        } else {
            tail.fifoNext = rq;
        }
        tail = rq;
        size++;
    }

    /** Puts {@code rq} (not in the list) where {@code at} (in the list) is; {@code at} leaves. */
    void replace(Request at, Request rq) {
        rq.fifoPrev = at.fifoPrev;
        rq.fifoNext = at.fifoNext;
        if (at.fifoPrev == null) {
            head = rq;
        } else {
            at.fifoPrev.fifoNext = rq;
        }
        if (at.fifoNext == null) {
            tail = rq;
        } else {
            at.fifoNext.fifoPrev = rq;
        }
        at.fifoPrev = null;
        at.fifoNext = null;
    }

    void remove(Request rq) {
        if (rq.fifoPrev == null) {
            head = rq.fifoNext;
        } else {
            rq.fifoPrev.fifoNext = rq.fifoNext;
        }
        if (rq.fifoNext == null) {
            tail = rq.fifoPrev;
        } else {
            rq.fifoNext.fifoPrev = rq.fifoPrev;
        }
        rq.fifoPrev = null;
        rq.fifoNext = null;
        size--;
    }

    /** Visits the list in order (debug dumps). */
    void forEach(java.util.function.Consumer<Request> c) {
        for (Request rq = head; rq != null; rq = rq.fifoNext) {
            c.accept(rq);
        }
    }
}
