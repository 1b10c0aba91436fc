package io.hostwide.tcm.core;

import java.util.concurrent.atomic.AtomicInteger;


/**
 * A logical unit's task set ordering state (SAM-5 §8.6), the counters of LIO's 2021 algorithm (digest §6.3):
 * {@code nonOrdered} counts SIMPLE and HEAD OF QUEUE commands executing, {@code delayedCount} the commands parked
 * on the delayed list plus a running ORDERED one, {@code orderedSyncInProgress} whether an ORDERED command runs.
 * Unlike LIO's code, which decrements {@code delayed_cmd_count} when it dequeues the ORDERED command, the running
 * ORDERED command stays counted until it completes: otherwise a SIMPLE command arriving while it runs, with
 * nothing else parked, would run beside it, breaking SAM-5 §8.6.3 (found by TaskAttributeTest).
 * The counters are plain volatile atomics read and written in a Dekker pattern (a SIMPLE increments nonOrdered and
 * then reads delayedCount; an ORDERED increments delayedCount and the drainer then reads nonOrdered), so one of the
 * two always sees the other — no lock on the SIMPLE fast path. The delayed list is intrusive (no allocation) and
 * guarded by this object's monitor.
 */
public final class TaskSet {
    final AtomicInteger nonOrdered = new AtomicInteger();
    final AtomicInteger delayedCount = new AtomicInteger();
    /** Guarded by this. */
    boolean orderedSyncInProgress;
    /** Guarded by this: FIFO of parked commands linked through {@link CoreCommand#parkedNext}. */
    CoreCommand delayedHead;
    CoreCommand delayedTail;
    /** Work-in-progress counter: one drainer at a time, requests while it drains make it loop. */
    final AtomicInteger drainWip = new AtomicInteger();

    /** Commands currently counted as SIMPLE/HEAD OF QUEUE in execution. */
    public int nonOrdered() { return nonOrdered.get(); }

    /** Commands parked (ORDERED ones included), plus one while an ORDERED command runs. */
    public int delayed() { return delayedCount.get(); }

    public synchronized boolean orderedInProgress() { return orderedSyncInProgress; }

    synchronized void park(CoreCommand c) {
        c.parkedNext = null;
        if (delayedTail == null) {
            delayedHead = c;
        } else {
            delayedTail.parkedNext = c;
        }
        delayedTail = c;
    }

    /** Unlinks a parked command; returns false when it is not parked here. Caller holds this. */
    boolean unlink(CoreCommand c) {
        CoreCommand prev = null;
        for (CoreCommand x = delayedHead; x != null; prev = x, x = x.parkedNext) {
            if (x == c) {
                if (prev == null) {
                    delayedHead = x.parkedNext;
                } else {
                    prev.parkedNext = x.parkedNext;
                }
                if (delayedTail == x) {
                    delayedTail = prev;
                }
                x.parkedNext = null;
                delayedCount.decrementAndGet();
                return true;
            }
        }
        return false;
    }

    /** Unlinks every parked command whose abort was requested; returns them chained through parkedNext. */
    synchronized CoreCommand unlinkAborted() {
        CoreCommand out = null;
        CoreCommand prev = null;
        CoreCommand c = delayedHead;
        while (c != null) {
            CoreCommand next = c.parkedNext;
            if (c.abortRequested()) {
                if (prev == null) {
                    delayedHead = next;
                } else {
                    prev.parkedNext = next;
                }
                if (delayedTail == c) {
                    delayedTail = prev;
                }
                delayedCount.decrementAndGet();
                c.orderingState = TaskAttributeGate.NONE;
                c.parkedNext = out;
                out = c;
            } else {
                prev = c;
            }
            c = next;
        }
        return out;
    }

    /** Removes and returns the head when it may run now, per the 2021 rules; null otherwise. Caller holds this. */
    CoreCommand takeRunnable() {
        CoreCommand head = delayedHead;
        if (orderedSyncInProgress || head == null) {
            return null;
        }
        if (head.orderingState == TaskAttributeGate.PARKED_ORDERED) {
            if (nonOrdered.get() > 0) {
                return null; // an ORDERED command waits for every older command to finish
            }
            orderedSyncInProgress = true;
            head.orderingState = TaskAttributeGate.RUNNING_ORDERED; // stays in delayedCount until it completes
        } else {
            nonOrdered.incrementAndGet();
            head.orderingState = TaskAttributeGate.RUNNING_NON_ORDERED;
            delayedCount.decrementAndGet();
        }
        delayedHead = head.parkedNext;
        if (delayedHead == null) {
            delayedTail = null;
        }
        head.parkedNext = null;
        return head;
    }
}
