package io.hostwide.tcm.lu;

import io.hostwide.scsi.spec.Asc;

/**
 * Pending unit attention conditions of one I_T nexus for one logical unit (SAM-5 §5.14, SPC-4 §5.14).
 * Each condition is reported once. Reset-class conditions (ASC 29h) go first and replace others of their class;
 * a condition already queued is not queued twice. The fast path reads only {@link #isEmpty()} (a plain volatile
 * read of the count, no lock); adding and taking synchronise on the queue.
 */
public final class UnitAttentionQueue {
    private static final int CAPACITY = 16;

    private final int[] conditions = new int[CAPACITY];
    private volatile int count; // written under the monitor; the unlocked read in isEmpty pairs with these writes
    /** The nexus and LU this queue belongs to, told to its session's listener; null for a free-standing queue. */
    private final SessionLun owner;

    public UnitAttentionQueue() {
        this(null);
    }

    UnitAttentionQueue(SessionLun owner) {
        this.owner = owner;
    }

    public boolean isEmpty() { return count == 0; }

    /**
     * Queues a condition (ASC/ASCQ as in {@link Asc}); on overflow the oldest non-reset condition is dropped. A
     * condition newly queued is told to the session's {@link UnitAttentionListener}, outside this queue's monitor.
     */
    public void add(int ascAscq) {
        if (addLocked(ascAscq) && owner != null) {
            owner.unitAttentionQueued(ascAscq);
        }
    }

    private synchronized boolean addLocked(int ascAscq) {
        int n = count;
        for (int i = 0; i < n; i++) {
            if (conditions[i] == ascAscq) {
                return false;
            }
        }
        boolean reset = Asc.asc(ascAscq) == 0x29;
        if (reset) {
            // SAM-5 §5.14: a reset condition supersedes the ones it implies; keep it at the head.
            int w = 0;
            for (int i = 0; i < n; i++) {
                if (Asc.asc(conditions[i]) != 0x29) {
                    conditions[w++] = conditions[i];
                }
            }
            n = Math.min(w, CAPACITY - 1);
            System.arraycopy(conditions, 0, conditions, 1, n);
            conditions[0] = ascAscq;
            count = n + 1;
            return true;
        }
        if (n == CAPACITY) {
            System.arraycopy(conditions, 1, conditions, 0, n - 1); // drop the oldest
            n--;
        }
        conditions[n] = ascAscq;
        count = n + 1;
        return true;
    }

    /** Removes and returns the head condition, or -1 when none is pending. */
    public synchronized int poll() {
        int n = count;
        if (n == 0) {
            return -1;
        }
        int head = conditions[0];
        System.arraycopy(conditions, 1, conditions, 0, n - 1);
        count = n - 1;
        return head;
    }

    /** Removes a specific condition if pending (REPORT LUNS clears REPORTED LUNS DATA HAS CHANGED, SPC-4 §6.33). */
    public synchronized boolean remove(int ascAscq) {
        int n = count;
        for (int i = 0; i < n; i++) {
            if (conditions[i] == ascAscq) {
                System.arraycopy(conditions, i + 1, conditions, i, n - i - 1);
                count = n - 1;
                return true;
            }
        }
        return false;
    }

    /** Whether {@code ascAscq} is pending. */
    public synchronized boolean contains(int ascAscq) {
        for (int i = 0; i < count; i++) {
            if (conditions[i] == ascAscq) {
                return true;
            }
        }
        return false;
    }

    public synchronized void clear() { count = 0; }

    public synchronized int size() { return count; }

    /** The head condition without removing it, or -1. */
    public synchronized int peek() { return count == 0 ? -1 : conditions[0]; }
}
