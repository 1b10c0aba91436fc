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
import io.hostwide.iscsi.pdu.TextRequest;
import io.hostwide.iscsi.pdu.TextResponse;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.RejectReason;
import io.hostwide.iscsi.spec.TextKey;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** NOP, Text (SendTargets), task management and Logout in the full feature phase (RFC 7143 §11.5-§11.19). */
final class FfpControl {
    private final FullFeature ffp;
    private final TmfHandler tmf;
    private final TextAccumulator textIn = new TextAccumulator();
    private TextSplitter textOut;
    private int textTtt;
    private int nextTextTtt = 0x7000_0000;

    FfpControl(FullFeature ffp) {
        this.ffp = ffp;
        this.tmf = new TmfHandler(ffp);
    }

    void execute(Pdu p) {
        switch (p) {
            case NopOut n -> ffp.nopIn(n);
            case TextRequest t -> text(t);
            case TaskManagementRequest t -> tmf.handle(t);
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
