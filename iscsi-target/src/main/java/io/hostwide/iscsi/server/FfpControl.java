package io.hostwide.iscsi.server;

import io.hostwide.iscsi.discovery.SendTargets;
import io.hostwide.iscsi.login.TextAccumulator;
import io.hostwide.iscsi.login.TextCodec;
import io.hostwide.iscsi.login.TextSplitter;
import io.hostwide.iscsi.pdu.LogoutRequest;
import io.hostwide.iscsi.pdu.LogoutResponse;
import io.hostwide.iscsi.pdu.NopIn;
import io.hostwide.iscsi.pdu.NopOut;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.pdu.TaskManagementRequest;
import io.hostwide.iscsi.pdu.TextRequest;
import io.hostwide.iscsi.pdu.TextResponse;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.RejectReason;
import java.nio.ByteBuffer;

/** NOP, Text, task management and Logout in the full feature phase (RFC 7143 §11.5-§11.19). */
final class FfpControl {
    private final FullFeature ffp;
    private final TmfHandler tmf;
    private final TextAccumulator textIn = new TextAccumulator();
    private TextSplitter textOut;
    private int textTtt = Codes.RESERVED_TAG;
    private int textItt;
    private int nextTextTtt = 0x7000_0000;
    /** The initiator's MaxRecvDataSegmentLength on this connection: from login, redeclared by Text (§13.12). */
    private int maxRecv;

    FfpControl(FullFeature ffp) {
        this.ffp = ffp;
        this.tmf = new TmfHandler(ffp);
        this.maxRecv = ffp.params.initiatorMaxRecvDataSegmentLength();
    }

    void execute(Pdu p) {
        switch (p) {
            case NopOut n -> nopIn(n);
            case TextRequest t -> text(t);
            case TaskManagementRequest t -> tmf.handle(t);
            case LogoutRequest l -> logout(l);
            default -> ffp.reject(RejectReason.COMMAND_NOT_SUPPORTED, p);
        }
    }

    /** NOP-In answering a ping, RFC 7143 §11.19: same ITT, TTT reserved, the ping data echoed. */
    private void nopIn(NopOut n) {
        IscsiSession s = ffp.session;
        ByteBuffer echo = PduCopies.copy(n.data());
        ffp.conn.writer.send(sn -> new NopIn(n.lun(), n.initiatorTaskTag(), Codes.RESERVED_TAG, sn, s.expCmdSn(),
                s.maxCmdSn(), echo), true);
    }

    /**
     * Text Request, RFC 7143 §11.10: the keys {@link FfpTextKeys} allows in the full feature phase, with
     * continuation both ways (C bit, Target Transfer Tag, §11.10.2-§11.10.4). A request with TTT 0xffffffff starts a
     * new exchange; any other TTT must be the one our last response gave, else the request is rejected (Invalid PDU
     * Field) and the exchange is reset.
     */
    private void text(TextRequest t) {
        if (t.cont() && t.fin()) { // §11.10.2: C = 1 requires F = 0
            resetText();
            ffp.reject(RejectReason.PROTOCOL_ERROR, t);
            return;
        }
        int ttt = t.targetTransferTag();
        if (ttt != Codes.RESERVED_TAG && (ttt != textTtt || t.initiatorTaskTag() != textItt)) {
            resetText();
            ffp.reject(RejectReason.INVALID_PDU_FIELD, t);
            return;
        }
        if (ttt != Codes.RESERVED_TAG && textOut != null && !t.data().hasRemaining()) {
            sendTextPiece(t); // the initiator asks for the next piece of our answer
            return;
        }
        if (ttt == Codes.RESERVED_TAG) {
            resetText(); // a new exchange
        }
        textOut = null;
        textItt = t.initiatorTaskTag();
        if (!textIn.append(t.data())) {
            resetText();
            ffp.reject(RejectReason.PROTOCOL_ERROR, t);
            return;
        }
        if (t.cont()) { // more request text follows: acknowledge with an empty response (§11.10.2)
            textTtt = nextTextTtt++;
            respondText(t, false, false, textTtt, ByteBuffer.allocate(0));
            return;
        }
        TextCodec.Parsed parsed = TextCodec.parse(textIn.take());
        if (!parsed.ok()) {
            resetText();
            ffp.reject(RejectReason.PROTOCOL_ERROR, t);
            return;
        }
        String own = ffp.session.discovery() ? null : ffp.session.target.name();
        FfpTextKeys.Outcome o = FfpTextKeys.answer(parsed.pairs(), ffp.session.discovery(),
                value -> SendTargets.answer(value, own, ffp.session.initiatorName, ffp.conn.server.discoveryTargets(ffp.conn.localAddress())));
        if (o.protocolError() != null) { // §6.6: renegotiating a login-only key is a protocol error
            resetText();
            ffp.reject(RejectReason.PROTOCOL_ERROR, t);
            return;
        }
        // Pieces stay within the initiator's MaxRecvDataSegmentLength and within one send buffer.
        textOut = new TextSplitter(TextCodec.encode(o.answers()), Math.min(maxRecv, ResponseWriter.MAX_SEGMENT));
        textTtt = nextTextTtt++;
        sendTextPiece(t);
        if (o.maxRecvDataSegmentLength() > 0) { // the new limit applies to what we send after this response
            maxRecv = o.maxRecvDataSegmentLength();
            ffp.conn.writer.maxRecvDataSegmentLength(maxRecv);
        }
    }

    private void resetText() {
        textOut = null;
        textIn.take();
        textTtt = Codes.RESERVED_TAG;
    }

    private void sendTextPiece(TextRequest t) {
        ByteBuffer piece = textOut.next();
        boolean more = textOut.more();
        if (!more) {
            textOut = null;
            textTtt = Codes.RESERVED_TAG; // the exchange is over: a later TTT must not match it
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
        if (wholeSession) {
            s.releaseSpc2(); // before the response: see IscsiSession.releaseSpc2
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
