package io.hostwide.blk.nullb;

import io.hostwide.blk.CompletionBatch;
import io.hostwide.blk.Request;
import io.hostwide.blk.exec.DelayedWork;
import io.hostwide.blk.exec.Kblockd;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One null device hardware queue ({@code struct nullb_queue}): the deferred
 * "softirq" completions (a lock-free stack drained as one batch by the dispatching
 * thread at the end of its batch) and the timer-mode FIFO (completed by a kblockd
 * timer {@code completion_nsec} after issue). Both link requests through
 * {@link Request#driverNext}, so nothing is allocated per I/O.
 */
final class NullQueue {
    private static final VarHandle SOFTIRQ;

    static {
        try {
            SOFTIRQ = MethodHandles.lookup().findVarHandle(NullQueue.class, "softirqHead", Request.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Kblockd kblockd;
    private final long completionNsec;
    private final DelayedWork timer;
    @SuppressWarnings("unused") private volatile Request softirqHead;
    // Timer FIFO, guarded by this.
    private Request timerHead;
    private Request timerTail;

    NullQueue(Kblockd kblockd, String name, long completionNsec) {
        this.kblockd = kblockd;
        this.completionNsec = completionNsec;
        this.timer = kblockd.newWork(name + "/timer", this::timerWork);
    }

    /** Defers the completion to {@link #drainSoftirq()}. The CAS (release) publishes the link and PDU. */
    void pushSoftirq(Request rq) {
        Request head;
        do {
            head = (Request) SOFTIRQ.getAcquire(this);
            rq.driverNext = head;
        } while (!SOFTIRQ.compareAndSet(this, head, rq));
    }

    /** Completes everything deferred so far, oldest first, as one batch. */
    void drainSoftirq() {
        Request chain = (Request) SOFTIRQ.getAndSet(this, (Request) null);   // acquire: pairs with the push CAS
        if (chain == null) {
            return;
        }
        Request fifo = null;
        while (chain != null) {   // the stack is newest-first: reverse it
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
