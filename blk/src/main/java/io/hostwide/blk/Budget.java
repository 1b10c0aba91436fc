package io.hostwide.blk;

import java.lang.invoke.VarHandle;

/**
 * Dispatch budgets ({@code blk_mq_get_dispatch_budget} / {@code put}), owned by
 * the block layer (see {@link BlkMqOps}). A failed take registers in the queue's
 * {@code restarts} counter and re-tries once, so a budget returned in between is
 * never missed; a release that finds the counter set re-runs the queue — SCSI's
 * {@code sdev->restarts} (digest §4.6), kept here because budgets are ours.
 */
final class Budget {
    /** The driver has no budgets: nothing held. */
    static final int UNUSED = -1;
    /** The driver is out of budget. */
    static final int NONE = -2;

    private Budget() {
    }

    static int take(Hctx h) {
        RequestQueue q = h.q;
        BlkMqOps ops = q.set.ops;
        if (!ops.hasBudget()) {
            return UNUSED;
        }
        int token = ops.getBudget(h);
        if (token >= 0) {
            return token;
        }
        if (ops.budgetRestartsByDriver()) {
            return NONE;
        }
        // Full-fence RMW; pairs with the fence in release() between putBudget and the restarts read.
        q.incBudgetRestarts();
        token = ops.getBudget(h);
        return token >= 0 ? token : NONE;
    }

    static void release(RequestQueue q, int token) {
        if (token < 0) {
            return;
        }
        BlkMqOps ops = q.set.ops;
        ops.putBudget(q, token);
        if (ops.budgetRestartsByDriver()) {
            return;
        }
        VarHandle.fullFence();
        if (q.budgetRestarts() != 0 && q.clearBudgetRestarts()) {
            q.runHwQueues(true);
        }
    }

    static void releaseOf(Request rq) {
        int token = rq.budgetToken;
        if (token >= 0) {
            rq.budgetToken = -1;
            release(rq.q, token);
        }
    }
}
