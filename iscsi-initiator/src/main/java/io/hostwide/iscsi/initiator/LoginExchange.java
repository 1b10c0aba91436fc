package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.login.KeyValue;
import io.hostwide.iscsi.login.NegotiatedParameters;
import io.hostwide.iscsi.login.TextCodec;
import io.hostwide.iscsi.pdu.DecodeError;
import io.hostwide.iscsi.pdu.DecodeResult;
import io.hostwide.iscsi.pdu.LoginRequest;
import io.hostwide.iscsi.pdu.LoginResponse;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.LoginStatus;
import io.hostwide.iscsi.spec.TextKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One connection's login, RFC 7143 §6.3 and §10.12–10.13: the security stage (AuthMethod None or CHAP, §12.1) and the
 * operational stage, then full feature phase. A leading login offers the session-wide keys; a connection joining the
 * session (MC/S, same ISID and the session's TSIH) offers only the connection keys and inherits the rest. A config whose
 * URL is a portal ({@link IscsiUrl#isPortal()}) logs in a Discovery session (RFC 7143 §4.3), offering the connection
 * keys only.
 */
final class LoginExchange {
    /** The settled login: parameters, TSIH, and the sequence numbers to start full feature phase with. */
    record Result(NegotiatedParameters params, int tsih, int statSn, int expCmdSn, int maxCmdSn) {}

    private static final int MAX_ROUNDS = 16;

    private final PduChannel ch;
    private final InitiatorConfig cfg;
    private final int tsih;
    private final int cid;
    private final int cmdSn;
    private final int itt;
    private final String where;
    /** A portal URL (no target name) logs in a Discovery session, RFC 7143 §4.3 / §13.21. */
    private final boolean discovery;
    private int expStatSn;
    private LoginResponse last;

    LoginExchange(PduChannel ch, InitiatorConfig cfg, int tsih, int cid, int cmdSn, int itt) {
        this.ch = ch;
        this.cfg = cfg;
        this.tsih = tsih;
        this.cid = cid;
        this.cmdSn = cmdSn;
        this.itt = itt;
        this.discovery = cfg.url.isPortal();
        this.where = (discovery ? "discovery login" : "login to " + cfg.url.targetName()) + " at " + cfg.url.host()
                + ":" + cfg.url.port();
    }

    /** Runs the login; {@code session} is null for a leading login, else the leading login's parameters. */
    Result run(NegotiatedParameters session) throws IOException {
        security();
        Map<String, String> op = operational(session == null);
        NegotiatedParameters p = InitiatorNegotiation.settle(cfg, op, session);
        return new Result(p, last.tsih(), last.statSn(), last.expCmdSn(), last.maxCmdSn());
    }

    private void security() throws IOException {
        List<KeyValue> keys = new ArrayList<>();
        keys.add(new KeyValue(TextKey.INITIATOR_NAME, cfg.initiatorName));
        if (tsih == 0) {
            keys.add(new KeyValue(TextKey.SESSION_TYPE, discovery ? TextKey.DISCOVERY : TextKey.NORMAL));
        }
        if (!discovery) {   // RFC 7143 §13.4: TargetName is required in a Normal session's first request only
            keys.add(new KeyValue(TextKey.TARGET_NAME, cfg.url.targetName()));
        }
        if (cfg.chap == null) {
            keys.add(new KeyValue(TextKey.AUTH_METHOD, TextKey.NONE));
            Map<String, String> r = exchange(Codes.STAGE_SECURITY_NEGOTIATION, true, keys);
            finishStage(r, Codes.STAGE_SECURITY_NEGOTIATION);
            return;
        }
        keys.add(new KeyValue(TextKey.AUTH_METHOD, TextKey.CHAP + "," + TextKey.NONE));
        Map<String, String> r = exchange(Codes.STAGE_SECURITY_NEGOTIATION, false, keys);
        String method = r.get(TextKey.AUTH_METHOD);
        if (TextKey.NONE.equals(method)) {
            if (cfg.mutualChap != null) {
                throw new LoginException(where + ": the target chose AuthMethod=None, so it cannot prove itself "
                        + "for mutual CHAP");
            }
            finishStage(r, Codes.STAGE_SECURITY_NEGOTIATION);
            return;
        }
        if (!TextKey.CHAP.equals(method)) {
            throw new LoginException(where + ": the target refused CHAP (AuthMethod=" + method + ")");
        }
        ChapResponder chap = new ChapResponder(cfg.chap, cfg.mutualChap);
        r = exchange(Codes.STAGE_SECURITY_NEGOTIATION, false,
                List.of(new KeyValue(TextKey.CHAP_A, ChapResponder.ALGORITHMS)));
        List<KeyValue> answer = new ArrayList<>();
        chap.answer(r, answer);
        r = exchange(Codes.STAGE_SECURITY_NEGOTIATION, true, answer);
        chap.verifyTarget(r);
        finishStage(r, Codes.STAGE_SECURITY_NEGOTIATION);
    }

    /** Sends empty transit requests until the target agrees to leave {@code stage} (it may need more rounds). */
    private void finishStage(Map<String, String> r, int stage) throws IOException {
        for (int round = 0; !last.transit(); round++) {
            if (round >= MAX_ROUNDS) {
                throw new LoginException(where + ": the target never let us leave login stage " + stage);
            }
            exchange(stage, true, List.of());
        }
    }

    private Map<String, String> operational(boolean leading) throws IOException {
        // The session-wide keys are "Irrelevant when SessionType=Discovery" (RFC 7143 §13): offer only the
        // connection's digests and MaxRecvDataSegmentLength there.
        List<KeyValue> offer = InitiatorNegotiation.offer(cfg, leading && !discovery);
        Map<String, String> all = new LinkedHashMap<>();
        Map<String, String> r = exchange(Codes.STAGE_LOGIN_OPERATIONAL_NEGOTIATION, true, offer);
        all.putAll(r);
        for (int round = 0; !(last.transit() && last.nsg() == Codes.STAGE_FULL_FEATURE_PHASE); round++) {
            if (round >= MAX_ROUNDS) {
                throw new LoginException(where + ": operational negotiation did not finish");
            }
            // Keys the target offered that we did not: answer them (RFC 7143 §6.2) and go on.
            r = exchange(Codes.STAGE_LOGIN_OPERATIONAL_NEGOTIATION, true, InitiatorNegotiation.answer(r, offer));
            all.putAll(r);
        }
        return all;
    }

    /**
     * One request (and its continuation acknowledgements) and the target's complete answer, RFC 7143 §11.12.2 /
     * §11.13. A refusal is a {@link LoginException} naming the status.
     */
    private Map<String, String> exchange(int csg, boolean transit, List<KeyValue> keys) throws IOException {
        int nsg = csg == Codes.STAGE_SECURITY_NEGOTIATION ? Codes.STAGE_LOGIN_OPERATIONAL_NEGOTIATION
                : Codes.STAGE_FULL_FEATURE_PHASE;
        byte[] text = TextCodec.encode(keys);
        if (text.length > 8192) {
            throw new LoginException(where + ": login text longer than one PDU");
        }
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        LoginResponse resp = roundTrip(new LoginRequest(transit, false, csg, transit ? nsg : 0, Codes.VERSION,
                Codes.VERSION, cfg.isid, tsih, itt, cid, cmdSn, expStatSn, ByteBuffer.wrap(text)));
        append(got, resp);
        for (int i = 0; resp.cont(); i++) {   // RFC 7143 §11.13.3: C=1, ask for the rest with an empty request
            if (i >= MAX_ROUNDS) {
                throw new LoginException(where + ": login response text never ends");
            }
            resp = roundTrip(new LoginRequest(false, false, csg, 0, Codes.VERSION, Codes.VERSION, cfg.isid, tsih,
                    itt, cid, cmdSn, expStatSn, null));
            append(got, resp);
        }
        TextCodec.Parsed parsed = TextCodec.parse(ByteBuffer.wrap(got.toByteArray()));
        if (!parsed.ok()) {
            throw new LoginException(where + ": malformed login text from the target (" + parsed.error() + ")");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (KeyValue kv : parsed.pairs()) {
            out.put(kv.key(), kv.value());
        }
        return out;
    }

    private LoginResponse roundTrip(LoginRequest req) throws IOException {
        ch.send(req);
        DecodeResult d = ch.receive();
        if (d instanceof DecodeError e) {
            throw new LoginException(where + ": bad PDU from the target (" + e.detail() + ")");
        }
        if (!(d instanceof LoginResponse r)) {
            throw new LoginException(where + ": expected a Login Response, got " + ((io.hostwide.iscsi.pdu.Pdu) d).opcode());
        }
        if (r.statusClass() != LoginStatus.CLASS_SUCCESS) {
            throw new LoginException(r.statusClass(), r.statusDetail(), where);
        }
        if (r.versionActive() != Codes.VERSION || r.initiatorTaskTag() != itt || r.isid() != cfg.isid) {
            throw new LoginException(where + ": Login Response does not match our request (version, ITT or ISID)");
        }
        expStatSn = r.statSn() + 1;
        last = r;
        return r;
    }

    private static void append(ByteArrayOutputStream got, LoginResponse r) {
        ByteBuffer d = r.data().duplicate();
        byte[] b = new byte[d.remaining()];
        d.get(b);
        got.writeBytes(b);
    }
}
