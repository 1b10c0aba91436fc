package io.hostwide.blk.nullb;

import io.hostwide.blk.CompletionBatch;
import io.hostwide.blk.Request;
import io.hostwide.blk.exec.DelayedWork;
import io.hostwide.blk.exec.Kblockd;

/**
 * One null device hardware queue ({@code struct nullb_queue}): the deferred
 * "softirq" completions and the timer-mode FIFO (completed by a kblockd
 * timer {@code completion_nsec} after issue). Both link requests through
 * {@link Request#driverNext}, so nothing is allocated per I/O.
 *
 * <p>Softirq completions belong to the thread that ran {@code queue_rq}, as the kernel completes a null_blk
 * request in the softirq of the CPU that issued it: each dispatching thread keeps its own list (only it
 * touches it, so no atomics) and completes it as one batch at the end of its dispatch batch ({@code last}, or
 * {@code commit_rqs}, which the block layer guarantees whenever requests went out without {@code last}). Two
 * submitters on one hardware queue therefore never touch each other's requests, tags or lists; an earlier
 * per-hctx (later per-ctx) stack let one submitter's drain complete the other's requests, bouncing their
 * request, tag-word and hint lines between the cores.
 */
final class NullQueue {
    private static final ThreadLocal<Softirq> SOFTIRQ = ThreadLocal.withInitial(Softirq::new);

    /** One thread's deferred completions, newest first; touched only by that thread. */
    private static final class Softirq {
        Request head;
    }

    private final Kblockd kblockd;
    private final long completionNsec;
    private final DelayedWork timer;
    // Timer FIFO, guarded by this.
    private Request timerHead;
    private Request timerTail;

    NullQueue(Kblockd kblockd, String name, long completionNsec) {
        this.kblockd = kblockd;
        this.completionNsec = completionNsec;
        this.timer = kblockd.newWork(name + "/timer", this::timerWork);
    }

    /** Defers the completion to the calling thread's next {@link #drainSoftirq()}. */
    static void pushSoftirq(Request rq) {
        Softirq own = SOFTIRQ.get();
        rq.driverNext = own.head;
        own.head = rq;
    }

    /**
     * Completes everything the calling thread deferred, oldest first, as one batch. The list is detached
     * first: a completion callback that submits again (nested queue_rq on this thread) starts a new one,
     * which its own batch end drains.
     */
    static void drainSoftirq() {
        Softirq own = SOFTIRQ.get();
        Request chain = own.head;
        if (chain == null) {
            return;
        }
        own.head = null;
        Request fifo = null;
        while (chain != null) {   // newest-first: reverse it
            Request next = chain.driverNext;
            chain.driverNext = fifo;
            fifo = chain;
            chain = next;
        }
        completeChain(fifo);
    }

    /** Timer mode: completes {@code completion_nsec} from now. */
    void addTimer(Request rq) {
        NullCmd cmd = (NullCmd) rq.pdu;
        cmd.due = kblockd.nanoTime() + completionNsec;
        rq.driverNext = null;
        synchronized (this) {
            if (timerTail == null) {
                timerHead = rq;
                timerTail = rq;
                timer.mod(completionNsec);
            } else {
                timerTail.driverNext = rq;
                timerTail = rq;
            }
        }
    }

    private void timerWork() {
        long now = kblockd.nanoTime();
        Request due = null;
        synchronized (this) {
            Request last = null;
            Request rq = timerHead;
            while (rq != null && ((NullCmd) rq.pdu).due - now <= 0) {
                last = rq;
                rq = rq.driverNext;
            }
            if (last != null) {
                due = timerHead;
                last.driverNext = null;
                timerHead = rq;
                if (rq == null) {
                    timerTail = null;
                }
            }
            if (timerHead != null) {
                timer.mod(((NullCmd) timerHead.pdu).due - now);
            }
        }
        completeChain(due);
    }

    private static void completeChain(Request rq) {
        if (rq == null) {
            return;
        }
        CompletionBatch batch = Batches.acquire();
        try {
            while (rq != null) {
                Request next = rq.driverNext;   // read before the request can be freed and reused
                rq.driverNext = null;
                batch.add(rq, ((NullCmd) rq.pdu).status);
                rq = next;
            }
            batch.complete();
        } finally {
            Batches.release();
        }
    }

    void cancel() {
        timer.cancel();
    }
}
