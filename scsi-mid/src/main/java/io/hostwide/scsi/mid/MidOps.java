package io.hostwide.scsi.mid;

import io.hostwide.blk.BlkMqOps;
import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.Hctx;
import io.hostwide.blk.Request;
import io.hostwide.blk.RequestQueue;
import io.hostwide.blk.TimeoutAction;

/**
 * The midlayer as a blk driver ({@code scsi_mq_ops}): budgets, {@code scsi_queue_rq}, timeouts and the command PDU.
 */
final class MidOps implements BlkMqOps {
    private final ScsiHost host;

    MidOps(ScsiHost host) {
        this.host = host;
    }

    @Override
    public void initRequest(Request rq) {
        ScsiCmnd cmd = new ScsiCmnd(host, rq);
        rq.pdu = cmd;
        host.cmnds.add(cmd);
    }

    @Override
    public void exitRequest(Request rq) {
        if (rq.pdu instanceof ScsiCmnd c) {
            host.cmnds.remove(c);
        }
    }

    @Override
    public boolean hasBudget() {
        return true;
    }

    /** Passthrough requests go to the LUN's upper driver, which knows their command description (sd: SgIo). */
    @Override
    public boolean supportsPassthrough() {
        return true;
    }

    @Override
    public boolean budgetRestartsByDriver() {
        return true;
    }

    @Override
    public int getBudget(Hctx hctx) {
        return ((ScsiDevice) hctx.queue().queuedata).getBudget(hctx);
    }

    @Override
    public void putBudget(RequestQueue q, int token) {
        ((ScsiDevice) q.queuedata).putBudget(token);
    }

    /** {@code scsi_commit_rqs}: the host template's {@code commit_rqs} with the hardware queue's number. */
    @Override
    public void commitRqs(Hctx hctx) {
        host.lld.commitRqs(hctx.queueNum());
    }

    /** {@code scsi_mq_poll}: the host template's {@code mq_poll} with the hardware queue's number. */
    @Override
    public int poll(Hctx hctx, long timeoutNanos) {
        return host.lld.mqPoll(hctx.queueNum(), timeoutNanos);
    }

    /**
     * {@code scsi_queue_rq} (digest §4.4): device state, host recovery, target and host readiness, prepare once
     * (DONTPREP), start, {@code queuecommand}. A refusal sets the blocked counter, undoes the busy counts and
     * returns RESOURCE: the block layer re-runs the queue itself (at once, or after 3 ms with RESTART set), so no
     * refusal ever depends on a completion from another hardware queue.
     */
    @Override
    public BlkStatus queueRq(Hctx hctx, Request rq, boolean last) {
        ScsiDevice sdev = (ScsiDevice) rq.queue().queuedata;
        ScsiCmnd cmd = (ScsiCmnd) rq.pdu;
        switch (sdev.state) {
            case RUNNING -> { }
            case OFFLINE, DEL -> {
                return BlkStatus.IOERR;
            }
            default -> {
                return BlkStatus.RESOURCE;
            }
        }
        if (host.state != HostState.RUNNING) {
            return BlkStatus.RESOURCE;
        }
        if (!sdev.target.queueReady(sdev)) {
            host.addStarved(sdev);
            return BlkStatus.RESOURCE;
        }
        if (!host.hostQueueReady(sdev, cmd)) {
            sdev.target.unbusy(sdev);
            return BlkStatus.RESOURCE;
        }
        if (!rq.isDontPrep()) {
            BlkStatus st = prep(sdev, cmd, rq);
            if (st != BlkStatus.OK) {
                host.deviceUnbusy(cmd);
                return st;
            }
            rq.setDontPrep();
        }
        cmd.resetForPrep();
        sdev.iorequestCnt.incrementAndGet();
        cmd.last = last;
        cmd.markIssued();
        rq.start();
        int rtn;
        try {
            rtn = host.lld.queueCommand(cmd);
        } catch (RuntimeException e) {
            // A driver bug must not lose the request: complete it as a transport error (retried).
            cmd.done(HostByte.DID_ERROR, 0, null, 0, 0, cmd.transferLength);
            return BlkStatus.OK;
        }
        if (rtn == LowLevelDriver.OK) {
            return BlkStatus.OK;
        }
        if (!cmd.markIdleIfIssued()) {
            return BlkStatus.OK;   // the timeout path already owns it; error handling finishes it
        }
        host.setBlocked(sdev, rtn);
        host.deviceUnbusy(cmd);
        return BlkStatus.RESOURCE;
    }

    private BlkStatus prep(ScsiDevice sdev, ScsiCmnd cmd, Request rq) {
        cmd.device = sdev;
        cmd.retries = 0;
        cmd.allowed = host.template.allowedRetries;
        cmd.abortAttempted = false;
        cmd.firstIssueNanos = host.kblockd.nanoTime();
        UpperDriver uld = sdev.uld;
        if (uld == null) {
            return BlkStatus.IOERR;
        }
        try {
            return uld.initCommand(cmd, rq);
        } catch (IllegalArgumentException e) {
            return BlkStatus.IOERR;
        }
    }

    /**
     * {@code scsi_timeout}: if the driver is completing the command, let it; otherwise the command now belongs to
     * error handling (abort first).
     */
    @Override
    public TimeoutAction timeout(Request rq) {
        ScsiCmnd cmd = (ScsiCmnd) rq.pdu;
        ScsiDevice sdev = cmd.device;
        if (sdev != null) {
            sdev.iotmoCnt.incrementAndGet();
        }
        if (cmd.markTimedOut()) {
            host.eh.scheduleAbort(cmd);
        }
        return TimeoutAction.DONE;
    }
}
