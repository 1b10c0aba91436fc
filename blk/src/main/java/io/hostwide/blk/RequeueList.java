package io.hostwide.blk;

import io.hostwide.blk.exec.DelayedWork;

/**
 * A queue's requeue list and its kblockd work ({@code q->requeue_list},
 * {@code requeue_work}): requests handed back by the driver wait here until kicked,
 * then go to the head of their hctx's dispatch list, in order, and the queue runs.
 */
final class RequeueList {
    private final RequestQueue q;
    private final RqList requeueList = new RqList();
    private final DelayedWork requeueWork;

    RequeueList(RequestQueue q) {
        this.q = q;
        this.requeueWork = q.kblockd.newWork(q.name + "/requeue", this::requeueWork);
    }

    /** Runs the requeue work after {@code delayNanos} (moving a pending run). */
    void kick(long delayNanos) {
        requeueWork.mod(delayNanos);
    }

    void cancel() {
        requeueWork.cancel();
    }

    /** {@code blk_mq_requeue_request}. */
    void add(Request rq, boolean kick) {
        Dispatcher.handBack(rq);
        IoScheduler e = q.elevator;
        if (e != null && (rq.rqFlags & Request.RQF_USE_SCHED) != 0) {
            e.requeueRequest(rq);
        }
        synchronized (requeueList) {
            requeueList.addTail(rq);
        }
        if (kick) {
            kick(0);
        }
    }

    /** {@code blk_mq_requeue_work}: requeued requests go to the head of their hctx's dispatch list, in order. */
    private void requeueWork() {
        RqList list = new RqList();
        synchronized (requeueList) {
            list.spliceTail(requeueList);
        }
        while (!list.isEmpty()) {
            Hctx h = list.peekFirst().hctx;
            RqList mine = new RqList();
            RqList rest = new RqList();
            for (Request rq = list.pollFirst(); rq != null; rq = list.pollFirst()) {
                (rq.hctx == h ? mine : rest).addTail(rq);
            }
            synchronized (h.dispatch) {
                h.dispatch.spliceHead(mine);
            }
            list.spliceTail(rest);
        }
        q.runHwQueues(false);
    }
}
