package io.hostwide.iscsi.server;

import io.hostwide.iscsi.discovery.SendTargets;
import io.hostwide.iscsi.login.KeyValue;
import io.hostwide.iscsi.login.TextAccumulator;
import io.hostwide.iscsi.login.TextCodec;
import io.hostwide.iscsi.login.TextSplitter;
import io.hostwide.iscsi.pdu.LogoutRequest;
import io.hostwide.iscsi.pdu.LogoutResponse;
import io.hostwide.iscsi.pdu.NopOut;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.pdu.TaskManagementRequest;
import io.hostwide.iscsi.pdu.TaskManagementResponse;
import io.hostwide.iscsi.pdu.TextRequest;
import io.hostwide.iscsi.pdu.TextResponse;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.RejectReason;
import io.hostwide.iscsi.spec.TaskManagement;
import io.hostwide.iscsi.spec.TextKey;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** NOP, Text (SendTargets), task management and Logout in the full feature phase (RFC 7143 §11.5-§11.19). */
final class FfpControl {
    private final FullFeature ffp;
    private final TextAccumulator textIn = new TextAccumulator();
    private TextSplitter textOut;
    private int textTtt;
    private int nextTextTtt = 0x7000_0000;

    FfpControl(FullFeature ffp) {
        this.ffp = ffp;
    }

    void execute(Pdu p) {
        switch (p) {
            case NopOut n -> ffp.nopIn(n);
            case TextRequest t -> text(t);
            case TaskManagementRequest t -> taskManagement(t);
            case LogoutRequest l -> logout(l);
            default -> ffp.reject(RejectReason.COMMAND_NOT_SUPPORTED, p);
        }
    }

    /** Text Request, RFC 7143 §11.10: SendTargets (Appendix C); continuation both ways with C and TTT. */
    private void text(TextRequest t) {
        if (textOut != null && t.targetTransferTag() == textTtt && !t.data().hasRemaining()) {
            sendTextPiece(t);
            return;
        }
        textOut = null;
        if (!textIn.append(t.data())) {
            ffp.reject(RejectReason.PROTOCOL_ERROR, t);
            textIn.take();
            return;
        }
        if (t.cont()) { // more request text follows: acknowledge with an empty response (§11.10.2)
            int ttt = nextTextTtt++;
            textTtt = ttt;
            respondText(t, false, false, ttt, ByteBuffer.allocate(0));
            return;
        }
        TextCodec.Parsed parsed = TextCodec.parse(textIn.take());
        if (!parsed.ok()) {
            ffp.reject(RejectReason.PROTOCOL_ERROR, t);
            return;
        }
        List<KeyValue> answers = new ArrayList<>();
        for (KeyValue kv : parsed.pairs()) {
            if (kv.key().equals(TextKey.SEND_TARGETS)) {
                String own = ffp.session.discovery() ? null : ffp.session.target.name();
                answers.addAll(SendTargets.answer(kv.value(), own, ffp.session.initiatorName,
                        ffp.conn.server.discoveryTargets()));
            } else {
                // Operational keys are settled at login (LO/IO); anything else is not understood here.
                answers.add(new KeyValue(kv.key(), TextKey.NOT_UNDERSTOOD));
            }
        }
        // Pieces stay within the initiator's MaxRecvDataSegmentLength and within one send buffer.
        textOut = new TextSplitter(TextCodec.encode(answers),
                Math.min(ffp.params.initiatorMaxRecvDataSegmentLength(), ResponseWriter.MAX_SEGMENT));
        textTtt = nextTextTtt++;
        sendTextPiece(t);
    }

    private void sendTextPiece(TextRequest t) {
        ByteBuffer piece = textOut.next();
        boolean more = textOut.more();
        if (!more) {
            textOut = null;
        }
        respondText(t, !more, more, more ? textTtt : Codes.RESERVED_TAG, piece);
    }

    private void respondText(TextRequest t, boolean fin, boolean cont, int ttt, ByteBuffer data) {
        IscsiSession s = ffp.session;
        ffp.conn.writer.send(sn -> new TextResponse(fin, cont, t.lun(), t.initiatorTaskTag(), ttt, sn, s.expCmdSn(),
                s.maxCmdSn(), data), true);
    }

    /**
     * Task management, RFC 7143 §11.5: aborts act on tasks the transport still holds (waiting for Data-Out); a task
     * already in the core completes on its own (RAM-backed ones complete before the next PDU is read). Resets need
     * the core's reset entry points and are answered "not supported" until it has them.
     */
    private void taskManagement(TaskManagementRequest r) {
        int response = switch (r.function()) {
            case TaskManagement.ABORT_TASK -> abortTask(r);
            case TaskManagement.ABORT_TASK_SET, TaskManagement.CLEAR_TASK_SET -> abortSet(r.lun());
            case TaskManagement.TASK_REASSIGN -> TaskManagement.TASK_ALLEGIANCE_REASSIGNMENT_NOT_SUPPORTED; // ERL 0
            case TaskManagement.CLEAR_ACA, TaskManagement.LOGICAL_UNIT_RESET, TaskManagement.TARGET_WARM_RESET,
                    TaskManagement.TARGET_COLD_RESET -> TaskManagement.FUNCTION_NOT_SUPPORTED;
            default -> TaskManagement.FUNCTION_REJECTED;
        };
        IscsiSession s = ffp.session;
        ffp.conn.writer.send(sn -> new TaskManagementResponse(response, r.initiatorTaskTag(), sn, s.expCmdSn(),
                s.maxCmdSn()), true);
    }

    private int abortTask(TaskManagementRequest r) {
        for (Connection c : ffp.session.connections()) {
            FullFeature f = c.fullFeature();
            if (f == null) {
                continue;
            }
            for (Task t : f.waitingTasks(0, r.referencedTaskTag(), true)) {
                f.abortTask(t);
                return TaskManagement.FUNCTION_COMPLETE;
            }
            if (f.hasTask(r.referencedTaskTag())) {
                return TaskManagement.FUNCTION_COMPLETE; // in the core: it completes and answers by itself
            }
        }
        // RFC 7143 §11.6.1: a task that does not exist (or already completed) reports "Task does not exist"
        return TaskManagement.TASK_DOES_NOT_EXIST;
    }

    private int abortSet(long lun) {
        for (Connection c : ffp.session.connections()) {
            FullFeature f = c.fullFeature();
            if (f != null) {
                for (Task t : f.waitingTasks(lun, 0, false)) {
                    f.abortTask(t);
                }
            }
        }
        return TaskManagement.FUNCTION_COMPLETE;
    }

    /** Logout, RFC 7143 §11.14-§11.15: close the session, this or another connection; no recovery at ERL 0. */
    private void logout(LogoutRequest l) {
        IscsiSession s = ffp.session;
        int response;
        Connection victim = null;
        boolean wholeSession = false;
        switch (l.reasonCode()) {
            case Codes.LOGOUT_CLOSE_SESSION -> {
                response = Codes.LOGOUT_CLOSED_SUCCESSFULLY;
                wholeSession = true;
            }
            case Codes.LOGOUT_CLOSE_CONNECTION -> {
                victim = s.connection(l.cid());
                response = victim == null ? Codes.LOGOUT_CID_NOT_FOUND : Codes.LOGOUT_CLOSED_SUCCESSFULLY;
            }
            default -> response = Codes.LOGOUT_RECOVERY_NOT_SUPPORTED;
        }
        ffp.conn.writer.send(sn -> new LogoutResponse(response, l.initiatorTaskTag(), sn, s.expCmdSn(),
                s.maxCmdSn(), 0, 0), true);
        ffp.conn.writer.flush();
        if (wholeSession) {
            s.close();
        } else if (victim != null) {
            victim.close("logout");
        }
    }
}
