package io.hostwide.blk;

import java.lang.invoke.VarHandle;

/**
 * Running hardware queues and dispatch (blk-mq.c / blk-mq-sched.c, digest §2.10,
 * §2.11): {@code hctx->dispatch} first with RESTART, then the elevator or the
 * software queues, budget before dequeue, driver tag at dispatch, and the
 * RESOURCE / DEV_RESOURCE / no-tag / no-budget re-run rules.
 */
final class Dispatcher {
    /** {@code BLK_MQ_RESOURCE_DELAY}. */
    static final long RESOURCE_DELAY_MS = 3;
    /** {@code BLK_MQ_BUDGET_DELAY}. */
    static final long BUDGET_DELAY_MS = 3;
    private static final int EWMA_WEIGHT = 8;
    private static final int EWMA_FACTOR = 4;
    private static final long SCHED_LOOP_NANOS = 1_000_000_000L;

    private static final int PREP_OK = 0;
    private static final int PREP_NO_TAG = 1;
    private static final int PREP_NO_BUDGET = 2;

    private Dispatcher() {
    }

    /** {@code blk_mq_run_hw_queue}: only when not quiesced and there is work. */
    static void runHwQueue(Hctx h, boolean async) {
        if (h.q.isQuiesced() || !h.hasPending()) {
            return;
        }
        if (async) {
            kickRunWork(h);
        } else {
            dispatchInline(h);
        }
    }

    /** Async run now; "modify" semantics pull a pending delayed run forward. */
    static void kickRunWork(Hctx h) {
        if (h.testState(Hctx.S_STOPPED)) {
            return;
        }
        h.runWork.mod(0);
    }

    /** kblockd body of {@code hctx->run_work}. */
    static void runWork(Hctx h) {
        dispatchInline(h);
    }

    /** {@code blk_mq_sched_dispatch_requests} inside the SRCU-like dispatch section. */
    static void dispatchInline(Hctx h) {
        int srcuIdx = h.enterDispatch(Hctx.RUN_SLOT);
        try {
            // Checked after entering: pairs with quiesce() setting the flag before waiting for dispatchers.
            if (h.q.isQuiesced() || h.testState(Hctx.S_STOPPED)) {
                return;
            }
            h.run.inc();
            if (schedDispatch(h) == -1 && schedDispatch(h) == -1) {
                kickRunWork(h);
            }
        } finally {
            h.exitDispatch(srcuIdx);
        }
    }

    /** {@code __blk_mq_sched_dispatch_requests}; returns -1 for "-EAGAIN". */
    private static int schedDispatch(Hctx h) {
        RqList list = new RqList();
        synchronized (h.dispatch) {
            list.spliceTail(h.dispatch);
        }
        boolean needDispatch;
        if (!list.isEmpty()) {
            // Requests the driver handed back go first; if they do not drain, stop
            // here and leave the scheduler and ctx lists alone.
            markRestart(h);
            if (!dispatchRqList(h, list, true)) {
                return 0;
            }
            needDispatch = true;
        } else {
            needDispatch = h.dispatchBusy != 0;
        }
        if (h.q.elevator != null) {
            return doDispatchSched(h);
        }
        if (needDispatch) {
            return doDispatchCtx(h);
        }
        flushBusyCtxs(h, list);
        dispatchRqList(h, list, true);
        return 0;
    }

    /** {@code blk_mq_sched_mark_restart_hctx}. */
    static void markRestart(Hctx h) {
        if (!h.testState(Hctx.S_SCHED_RESTART)) {
            h.testAndSetState(Hctx.S_SCHED_RESTART);
        }
    }

    /**
     * {@code blk_mq_sched_restart}, on every request free: clear RESTART, full
     * barrier (the RMW), then run asynchronously, which is skipped when the hctx has no work.
     */
    static void restart(Hctx h) {
        if (h.testState(Hctx.S_SCHED_RESTART) && h.testAndClearState(Hctx.S_SCHED_RESTART)) {
            // The clear above is a full-fence RMW; pairs with the fullFence after the
            // splice to hctx->dispatch in dispatchRqList.
            runHwQueue(h, true);
        }
    }

    /**
     * The unconditional re-run after a completion on a shared tag set, when a {@link SharedTagModes} asks for one:
     * all hctxs of the queue (the RFC kernel's {@code blk_mq_run_hw_queues(q, true)} in {@code scsi_end_request})
     * or only the completing one (change 2 of seed 001). Each run is skipped when its hctx has no work. A batch of
     * completions ({@link CompletionBatch}) asks once per hctx group rather than once per request.
     */
    static void completionRun(Hctx h) {
        TagSet set = h.q.set;
        if (set.sharedTagModes() == SharedTagModes.IMPROVED || !(TagAlloc.queueShared(h) || set.hostTagset)) {
            return;
        }
        if (set.mode(SharedTagModes.RUN_ALL_HCTX_ON_COMPLETION)) {
            for (Hctx other : h.q.hctxs) {
                if (!other.isStopped()) {
                    h.q.completionRuns.inc();
                    runHwQueue(other, true);
                }
            }
        } else if (set.mode(SharedTagModes.RUN_COMPLETING_HCTX_ON_COMPLETION)) {
            h.q.completionRuns.inc();
            runHwQueue(h, true);
        }
    }

    private static void flushBusyCtxs(Hctx h, RqList out) {
        for (Ctx ctx : h.ctxs) {
            if (h.isCtxPending(ctx.indexHw)) {
                ctx.flushTo(out);
            }
        }
    }

    /**
     * {@code blk_mq_do_dispatch_ctx}: one request at a time round-robin over the
     * software queues, budget before each dequeue, so requests wait in ctx lists
     * (where they can still merge) while the driver pushes back.
     */
    private static int doDispatchCtx(Hctx h) {
        RqList list = new RqList();
        int n = h.ctxs.length;
        int from = h.dispatchFrom;
        int ret = 0;
        do {
            if (h.dispatchListNonEmpty()) {
                ret = -1;
                break;
            }
            if (!h.anyCtxPending()) {
                break;
            }
            int token = Budget.take(h);
            if (token == Budget.NONE) {
                break;
            }
            Request rq = null;
            for (int i = 0; i < n && rq == null; i++) {
                Ctx ctx = h.ctxs[(from + i) % n];
                if (h.isCtxPending(ctx.indexHw)) {
                    rq = ctx.dequeue();
                }
            }
            if (rq == null) {
                // Holding the budget could block other hctxs of this queue and nobody
                // is guaranteed to kick us: release it and re-run ourselves later.
                Budget.release(h.q, token);
                h.delayRunHwQueue(BUDGET_DELAY_MS);
                break;
            }
            rq.budgetToken = token;
            list.addTail(rq);
            from = (rq.ctx.indexHw + 1) % n;
        } while (dispatchRqList(h, list, false));
        h.dispatchFrom = from;
        return ret;
    }

    /** {@code blk_mq_do_dispatch_sched}: repeat while progress is made, for at most about a second. */
    private static int doDispatchSched(Hctx h) {
        long start = h.q.kblockd.nanoTime();
        int ret;
        do {
            ret = doDispatchSchedOnce(h);
        } while (ret == 1 && h.q.kblockd.nanoTime() - start < SCHED_LOOP_NANOS);
        return ret;
    }

    private static int doDispatchSchedOnce(Hctx h) {
        RequestQueue q = h.q;
        IoScheduler e = q.elevator;
        if (e == null) {
            return 0;
        }
        int maxDispatch = h.dispatchBusy != 0 ? 1 : q.nrRequests;
        RqList list = new RqList();
        int count = 0;
        boolean busy = false;
        boolean runQueue = false;
        do {
            if (!e.hasWork(h)) {
                break;
            }
            if (h.dispatchListNonEmpty()) {
                busy = true;
                break;
            }
            int token = Budget.take(h);
            if (token == Budget.NONE) {
                break;
            }
            Request rq = e.dispatch(h);
            if (rq == null) {
                Budget.release(q, token);
                runQueue = true;   // budget was available but no request: kick ourselves later
                break;
            }
            rq.budgetToken = token;
            list.addTail(rq);
            count++;
            // Stop at the first request that cannot get a driver tag; dispatchRqList
            // registers for a tag wake-up on it.
            if (!TagAlloc.getDriverTag(rq)) {
                break;
            }
        } while (count < maxDispatch);
        if (count == 0) {
            if (runQueue) {
                q.delayRunHwQueues(BUDGET_DELAY_MS);
            }
        } else if (!dispatchPerHctx(h, list)) {
            return busy ? -1 : 0;
        } else {
            return busy ? -1 : 1;
        }
        return busy ? -1 : 0;
    }

    /**
     * A queue-wide scheduler may hand out requests of other hctxs; dispatch each
     * hctx's requests as one group, in order (the kernel sorts by hctx).
     */
    private static boolean dispatchPerHctx(Hctx h, RqList list) {
        boolean progress = false;
        while (!list.isEmpty()) {
            Hctx target = list.peekFirst().hctx;
            RqList group = new RqList();
            RqList rest = new RqList();
            for (Request rq = list.pollFirst(); rq != null; rq = list.pollFirst()) {
                (rq.hctx == target ? group : rest).addTail(rq);
            }
            list.spliceTail(rest);
            progress |= dispatchRqList(target, group, false);
        }
        return progress;
    }

    /**
     * {@code blk_mq_dispatch_rq_list}: sends requests to the driver until one is
     * refused; returns true if any request was queued or ended.
     *
     * @param getBudget take a budget per request here (dispatch list, ctx flush);
     *                  false when the caller took it before dequeueing
     */
    static boolean dispatchRqList(Hctx h, RqList list, boolean getBudget) {
        if (list.isEmpty()) {
            return false;
        }
        RequestQueue q = h.q;
        BlkMqOps ops = q.set.ops;
        int queued = 0;
        int errors = 0;
        int prep = PREP_OK;
        boolean needsResource = false;
        BlkStatus ret = BlkStatus.OK;
        long now = q.kblockd.nanoTime();   // one clock read for the batch, for the requests' deadlines
        do {
            Request rq = list.peekFirst();
            prep = prepDispatchRq(h, rq, getBudget);
            if (prep != PREP_OK) {
                break;
            }
            list.pollFirst();
            boolean last = list.isEmpty() || !TagAlloc.getDriverTag(list.peekFirst());
            rq.batchNanos = now;
            ret = ops.queueRq(h, rq, last);
            if (ret == BlkStatus.OK) {
                queued++;
            } else if (ret.isResource()) {
                needsResource = ret == BlkStatus.RESOURCE;
                handBack(rq);
                list.addHead(rq);
                break;
            } else {
                errors++;
                Completion.endNotStarted(rq, ret);
            }
        } while (!list.isEmpty());
        h.dispatched.add(queued);
        if ((!list.isEmpty() || errors > 0 || ret.isResource()) && queued > 0) {
            ops.commitRqs(h);
        }
        if (!list.isEmpty()) {
            partialDispatch(h, list, prep, needsResource);
            return false;
        }
        updateDispatchBusy(h, false);
        return queued + errors != 0;
    }

    /** The leftovers rule of {@code blk_mq_dispatch_rq_list}'s tail. */
    private static void partialDispatch(Hctx h, RqList list, int prep, boolean needsResource) {
        for (Request rq = list.peekFirst(); rq != null; rq = rq.next) {
            Budget.releaseOf(rq);
        }
        synchronized (h.dispatch) {
            h.dispatch.spliceTail(list);
        }
        // Full barrier: the splice must be visible before we read SCHED_RESTART; pairs
        // with the clear-then-run in restart(), so either the completer sees our
        // requests or we see RESTART cleared and run ourselves.
        VarHandle.fullFence();
        boolean needsRestart = h.testState(Hctx.S_SCHED_RESTART);
        // For unshared tags the RESTART check suffices; with shared tags the tag may
        // be freed elsewhere, so a waiter that already fired means "run now".
        boolean noTag = prep == PREP_NO_TAG && (TagAlloc.queueShared(h) || h.q.set.hostTagset);
        if (prep == PREP_NO_BUDGET) {
            needsResource = true;
        }
        if (!needsRestart || (noTag && !h.dispatchWait.isQueued())) {
            runHwQueue(h, true);
        } else if (needsResource) {
            h.delayRunHwQueue(RESOURCE_DELAY_MS);
        }
        // else DEV_RESOURCE (or no tag with the waiter queued): a completion restarts us.
        updateDispatchBusy(h, true);
    }

    private static int prepDispatchRq(Hctx h, Request rq, boolean getBudget) {
        if (getBudget && rq.budgetToken < 0) {
            int token = Budget.take(h);
            if (token == Budget.NONE) {
                return PREP_NO_BUDGET;
            }
            rq.budgetToken = token;
        }
        if (!TagAlloc.getDriverTag(rq) && !TagAlloc.markTagWait(h, rq)) {
            // The budget is released with the other leftovers.
            return PREP_NO_TAG;
        }
        return PREP_OK;
    }

    /**
     * The driver refused {@code rq} ({@code blk_mq_handle_dev_resource} /
     * {@code __blk_mq_requeue_request}): back to IDLE if it was started, driver
     * tag returned if it holds a scheduler tag, budget returned.
     */
    static void handBack(Request rq) {
        if ((rq.stateAcquire() & Request.STATE_MASK) != Request.IDLE) {
            rq.setIdleNextGeneration();
        }
        TagAlloc.putDriverTag(rq);
        Budget.releaseOf(rq);
    }

    /** {@code blk_mq_update_dispatch_busy}: EWMA weight 8, factor 4; only without an elevator. */
    static void updateDispatchBusy(Hctx h, boolean busy) {
        if (h.q.elevator != null) {
            return;
        }
        int ewma = h.dispatchBusy;
        if (ewma == 0 && !busy) {
            return;
        }
        ewma *= EWMA_WEIGHT - 1;
        if (busy) {
            ewma += 1 << EWMA_FACTOR;
        }
        ewma /= EWMA_WEIGHT;
        h.dispatchBusy = ewma;
    }
}
