package io.hostwide.blk;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A test driver that starts every request it accepts and holds it until the test
 * completes it ({@link #completeAll}), with optional budgets and a scripted
 * queue_rq outcome.
 */
class HoldingDriver implements BlkMqOps {
    final ConcurrentLinkedQueue<Request> held = new ConcurrentLinkedQueue<>();
    final AtomicInteger queueRqCalls = new AtomicInteger();
    final AtomicInteger commits = new AtomicInteger();
    final AtomicInteger budgetInUse = new AtomicInteger();
    final List<Request> timedOut = new ArrayList<>();
    volatile int budgetLimit = -1;   // -1: no budgets
    volatile Function<Request, BlkStatus> script = rq -> BlkStatus.OK;
    volatile Function<Request, TimeoutAction> onTimeout = rq -> TimeoutAction.RESET_TIMER;

    @Override
    public BlkStatus queueRq(Hctx hctx, Request rq, boolean last) {
        queueRqCalls.incrementAndGet();
        BlkStatus st = script.apply(rq);
        if (st != BlkStatus.OK) {
            return st;
        }
        rq.start();
        held.add(rq);
        return BlkStatus.OK;
    }

    @Override
    public void commitRqs(Hctx hctx) {
        commits.incrementAndGet();
    }

    @Override
    public boolean hasBudget() {
        return budgetLimit >= 0;
    }

    @Override
    public int getBudget(RequestQueue q) {
        for (;;) {
            int cur = budgetInUse.get();
            if (cur >= budgetLimit) {
                return -1;
            }
            if (budgetInUse.compareAndSet(cur, cur + 1)) {
                return 0;
            }
        }
    }

    @Override
    public void putBudget(RequestQueue q, int token) {
        budgetInUse.decrementAndGet();
    }

    @Override
    public TimeoutAction timeout(Request rq) {
        synchronized (timedOut) {
            timedOut.add(rq);
        }
        return onTimeout.apply(rq);
    }

    int completeAll(BlkStatus status) {
        int n = 0;
        for (Request rq = held.poll(); rq != null; rq = held.poll()) {
            if (rq.complete(status)) {
                n++;
            }
        }
        return n;
    }

    int heldFor(RequestQueue q) {
        int n = 0;
        for (Request rq : held) {
            if (rq.queue() == q) {
                n++;
            }
        }
        return n;
    }
}
