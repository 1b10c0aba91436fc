package io.hostwide.blk.nullb;

import io.hostwide.blk.BlkMqOps;
import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.Hctx;
import io.hostwide.blk.Request;
import io.hostwide.blk.TimeoutAction;

/**
 * The null driver's {@code blk_mq_ops}, one per tag set. With {@code shared_tags}
 * several devices share a set, so each call is routed to the device owning the
 * request queue ({@code q->queuedata}).
 */
final class NullOps implements BlkMqOps {

    @Override
    public BlkStatus queueRq(Hctx hctx, Request rq, boolean last) {
        return ((NullDevice) hctx.queue().queuedata).queueRq(hctx, rq, last);
    }

    @Override
    public void commitRqs(Hctx hctx) {
        ((NullDevice) hctx.queue().queuedata).commitRqs(hctx);
    }

    /**
     * {@code null_timeout_rq}: a request dropped by timeout injection is ended with
     * TIMEOUT; any other is still held in a completion list or timer and will
     * complete, so it runs on.
     */
    @Override
    public TimeoutAction timeout(Request rq) {
        NullCmd cmd = (NullCmd) rq.pdu;
        if (!cmd.dropped) {
            return TimeoutAction.RESET_TIMER;
        }
        cmd.dropped = false;
        rq.complete(BlkStatus.TIMEOUT);
        return TimeoutAction.DONE;
    }

    @Override
    public void initRequest(Request rq) {
        rq.pdu = new NullCmd();
    }

    @Override
    public void exitRequest(Request rq) {
        rq.pdu = null;
    }
}
