package io.hostwide.blk.nullb;

import io.hostwide.blk.CompletionBatch;
import io.hostwide.blk.Request;
import io.hostwide.blk.exec.DelayedWork;
import io.hostwide.blk.exec.Kblockd;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One null device hardware queue ({@code struct nullb_queue}): the deferred
 * "softirq" completions and the timer-mode FIFO (completed by a kblockd
 * timer {@code completion_nsec} after issue). Both link requests through
 * {@link Request#driverNext}, so nothing is allocated per I/O.
 *
 * <p>Softirq completions are kept per submitting ctx, as the kernel completes a request in the softirq of
 * the CPU that submitted it ({@code blk_mq_complete_request}, per-CPU {@code blk_cpu_done}): one lock-free
 * stack per ctx of the hctx, each head on its own 128 bytes, so several submitters on one hardware queue do
 * not CAS one shared head on every request. The dispatching thread drains every stack of the hctx as one
 * batch at the end of its batch ({@code last}, {@code commit_rqs}), so requests pushed for other ctxs during
 * a queue run are never left behind.
 */
final class NullQueue {
    private static final VarHandle SOFTIRQ = MethodHandles.arrayElementVarHandle(Request[].class);
    /** References per softirq head: 128 bytes with compressed oops (256 without), one line pair each. */
    private static final int HEAD_STRIDE = 32;

    private final Kblockd kblockd;
    private final long completionNsec;
    private final DelayedWork timer;
    /** Per-ctx softirq stacks: ctx {@code indexHw} i at {@code (i + 1) * HEAD_STRIDE}; accessed through SOFTIRQ. */
    private final Request[] softirq;
    private final int nrCtx;
    // Timer FIFO, guarded by this.
    private Request timerHead;
    private Request timerTail;

    /** The queue of a hardware queue that {@code nrCtx} software queues map to. */
    NullQueue(Kblockd kblockd, String name, long completionNsec, int nrCtx) {
        this.nrCtx = nrCtx;
        this.softirq = new Request[(nrCtx + 1) * HEAD_STRIDE];
        this.kblockd = kblockd;
        this.completionNsec = completionNsec;
        this.timer = kblockd.newWork(name + "/timer", this::timerWork);
    }

    /**
     * Defers the completion to {@link #drainSoftirq()} on the stack of the request's ctx. The CAS (a volatile
     * write, so a release) publishes the link and the PDU; pairs with the acquire of the drain's getAndSet.
     */
    void pushSoftirq(Request rq) {
        int at = (rq.ctx().indexHw() + 1) * HEAD_STRIDE;
        Request head;
        do {
            head = (Request) SOFTIRQ.getAcquire(softirq, at);
            rq.driverNext = head;
        } while (!SOFTIRQ.compareAndSet(softirq, at, head, rq));
    }

    /** Completes everything deferred so far on every ctx's stack, each oldest first, as one batch. */
    void drainSoftirq() {
        CompletionBatch batch = null;
        try {
            for (int i = 1; i <= nrCtx; i++) {
                int at = i * HEAD_STRIDE;
                // Plain look first: an empty stack of another submitter's ctx is not dirtied.
                if (SOFTIRQ.getOpaque(softirq, at) == null) {
                    continue;
                }
                Request chain = (Request) SOFTIRQ.getAndSet(softirq, at, (Request) null);   // acquire: pairs with the push CAS
                if (chain == null) {
                    continue;
                }
                if (batch == null) {
                    batch = Batches.acquire();
                }
                addOldestFirst(batch, chain);
            }
            if (batch != null) {
                batch.complete();
            }
        } finally {
            if (batch != null) {
                Batches.release();
            }
        }
    }

    /** Adds a newest-first stack to {@code batch} oldest first. */
    private static void addOldestFirst(CompletionBatch batch, Request chain) {
        Request fifo = null;
        while (chain != null) {   // the stack is newest-first: reverse it
            Request next = chain.driverNext;
            chain.driverNext = fifo;
            fifo = chain;
            chain = next;
        }
        addChain(batch, fifo);
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
            addChain(batch, rq);
            batch.complete();
        } finally {
            Batches.release();
        }
    }

    /** Adds a {@link Request#driverNext} chain to {@code batch} (which completes itself whenever it fills). */
    private static void addChain(CompletionBatch batch, Request rq) {
        while (rq != null) {
            Request next = rq.driverNext;   // read before the request can be freed and reused
            rq.driverNext = null;
            batch.add(rq, ((NullCmd) rq.pdu).status);
            rq = next;
        }
    }

    void cancel() {
        timer.cancel();
    }
}
