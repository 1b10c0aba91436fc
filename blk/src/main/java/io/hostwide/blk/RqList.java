package io.hostwide.blk;

/**
 * An intrusive FIFO of requests linked through {@link Request#next} (the kernel's
 * {@code list_head queuelist}): no node allocation, O(1) splice. Not thread-safe;
 * each owner guards its lists with its own lock.
 */
public final class RqList {
    private Request head;
    private Request tail;
    private int size;

    public boolean isEmpty() {
        return head == null;
    }

    public int size() {
        return size;
    }

    public Request peekFirst() {
        return head;
    }

    public Request peekLast() {
        return tail;
    }

    public void addTail(Request rq) {
        rq.next = null;
        if (tail == null) {
            head = rq;
        } else {
            tail.next = rq;
        }
        tail = rq;
        size++;
    }

    public void addHead(Request rq) {
        rq.next = head;
        head = rq;
        if (tail == null) {
            tail = rq;
        }
        size++;
    }

    public Request pollFirst() {
        Request rq = head;
        if (rq != null) {
            head = rq.next;
            if (head == null) {
                tail = null;
            }
            rq.next = null;
            size--;
        }
        return rq;
    }

    /** Moves every element of {@code other} to the end of this list, leaving {@code other} empty. */
    public void spliceTail(RqList other) {
        if (other.head == null) {
            return;
        }
        if (tail == null) {
            head = other.head;
        } else {
            tail.next = other.head;
        }
        tail = other.tail;
        size += other.size;
        other.clear();
    }

    /** Moves every element of {@code other} to the front of this list, leaving {@code other} empty. */
    public void spliceHead(RqList other) {
        if (other.head == null) {
            return;
        }
        other.tail.next = head;
        head = other.head;
        if (tail == null) {
            tail = other.tail;
        }
        size += other.size;
        other.clear();
    }

    public void clear() {
        head = null;
        tail = null;
        size = 0;
    }
}
