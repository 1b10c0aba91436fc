package io.hostwide.iscsi.login;

import static io.hostwide.iscsi.spec.Codes.STAGE_FULL_FEATURE_PHASE;
import static io.hostwide.iscsi.spec.Codes.STAGE_LOGIN_OPERATIONAL_NEGOTIATION;
import static io.hostwide.iscsi.spec.Codes.STAGE_SECURITY_NEGOTIATION;

import io.hostwide.iscsi.pdu.LoginRequest;
import io.hostwide.iscsi.pdu.LoginResponse;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.LoginStatus;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The target side of one connection's login phase, RFC 7143 §6.3 and §11.12-§11.13: a pure state machine fed Login
 * Request PDUs, answering each with exactly one Login Response. It checks version, ISID/TSIH/CID constancy, the
 * CSG/NSG/T/C rules, names, ACL and CHAP, negotiates the operational keys, and asks the environment to admit the
 * session on the final transit to full feature phase. No input makes it throw.
 */
public final class LoginStateMachine {
    /** RFC 7143 §13.12: login PDUs carry at most 8192 bytes of data regardless of declarations. */
    static final int LOGIN_SEGMENT_LIMIT = 8192;

    private final LoginEnvironment env;
    private final Random random;
    private int statSn;

    private boolean first = true;
    private boolean finished;
    private int stage;
    private long isid;
    private int tsih;
    private int cid;
    private boolean declaredOperational;

    private final LoginNames names = new LoginNames();
    private final Map<String, String> seen = new LinkedHashMap<>();
    private final TextAccumulator pendingText = new TextAccumulator();
    private TextSplitter pendingReply;
    private ChapAuthenticator auth;
    private Negotiator negotiator;

    /**
     * @param initialStatSn the StatSN of the first Login Response (RFC 7143 §11.13.4)
     * @param random the source of CHAP identifiers and challenges (a SecureRandom in the server)
     */
    public LoginStateMachine(LoginEnvironment env, int initialStatSn, Random random) {
        this.env = env;
        this.statSn = initialStatSn;
        this.random = random;
    }

    /** The StatSN the connection continues with after a successful login. */
    public int nextStatSn() {
        return statSn;
    }

    public boolean finished() {
        return finished;
    }

    /** Answers one Login Request. */
    public LoginStep onRequest(LoginRequest req) {
        if (finished) {
            return fail(req, LoginStatus.INVALID_DURING_LOGIN, "login already finished");
        }
        LoginStep framing = checkFraming(req);
        if (framing != null) {
            return framing;
        }
        if (pendingReply != null) {
            return continueReply(req);
        }
        if (!pendingText.append(req.data())) {
            return fail(req, LoginStatus.INITIATOR_ERROR, "login text too long");
        }
        if (req.cont()) { // RFC 7143 §11.12.2: more text follows; answer with an empty response
            return respond(req, false, 0, List.of(), LoginStatus.SUCCESS);
        }
        TextCodec.Parsed parsed = TextCodec.parse(pendingText.take());
        if (!parsed.ok()) {
            return fail(req, LoginStatus.INITIATOR_ERROR, parsed.error());
        }
        return negotiate(req, parsed.pairs());
    }

    private LoginStep checkFraming(LoginRequest req) {
        if (req.versionMin() > Codes.VERSION || req.versionMax() < Codes.VERSION) { // RFC 7143 §11.12.4
            return fail(req, LoginStatus.UNSUPPORTED_VERSION, "no common version");
        }
        if (first) {
            isid = req.isid();
            tsih = req.tsih();
            cid = req.cid();
            if (req.csg() != STAGE_SECURITY_NEGOTIATION && req.csg() != STAGE_LOGIN_OPERATIONAL_NEGOTIATION) {
                return fail(req, LoginStatus.INITIATOR_ERROR, "first login request not in a login stage");
            }
            stage = req.csg();
        } else if (req.isid() != isid || req.tsih() != tsih || req.cid() != cid) {
            return fail(req, LoginStatus.INITIATOR_ERROR, "ISID, TSIH or CID changed during login");
        } else if (req.csg() != stage) {
            return fail(req, LoginStatus.INITIATOR_ERROR, "CSG does not match the current stage");
        }
        if (req.transit() && req.cont()) { // RFC 7143 §11.12.2
            return fail(req, LoginStatus.INITIATOR_ERROR, "T and C both set");
        }
        if (req.transit() && (req.nsg() <= req.csg() || req.nsg() == 2)) { // RFC 7143 §11.12.3, §6.3
            return fail(req, LoginStatus.INITIATOR_ERROR, "invalid NSG for a transit");
        }
        return null;
    }

    private LoginStep continueReply(LoginRequest req) {
        if (req.data().hasRemaining() || req.cont()) {
            return fail(req, LoginStatus.INITIATOR_ERROR, "text sent while the target was continuing its reply");
        }
        ByteBuffer piece = pendingReply.next();
        boolean more = pendingReply.more();
        if (!more) {
            pendingReply = null;
        }
        // A split reply never transits: the initiator asks again for the transit once it has the whole reply.
        return emit(req, false, more, 0, piece, LoginStatus.SUCCESS);
    }

    private LoginStep negotiate(LoginRequest req, List<KeyValue> pairs) {
        for (KeyValue kv : pairs) { // RFC 7143 §6.2: a key negotiated twice in a login is a protocol error
            String before = seen.putIfAbsent(kv.key(), kv.value());
            if (before != null && !(LoginNames.isName(kv.key()) && before.equals(kv.value()))) {
                return fail(req, LoginStatus.INITIATOR_ERROR, "key " + kv.key() + " sent twice");
            }
        }
        List<KeyValue> answers = new ArrayList<>();
        if (first) {
            LoginStatus s = names.first(pairs, env, tsih != 0);
            if (s != null) {
                return fail(req, s, names.failure());
            }
            ChapPolicy chap = names.discovery() ? env.discoveryChap()
                    : names.target().chapFor(names.initiatorName());
            auth = new ChapAuthenticator(chap == null ? ChapPolicy.NONE : chap, random);
            negotiator = new Negotiator(env.policy(), tsih == 0);
            negotiator.discovery(names.discovery());
            if (stage == STAGE_LOGIN_OPERATIONAL_NEGOTIATION && !auth.mayLeaveSecurityStage()) {
                return fail(req, LoginStatus.AUTHENTICATION_FAILURE, "security stage skipped but CHAP required");
            }
            names.declareFirst(answers);
            first = false;
        } else {
            LoginStatus s = names.later(pairs);
            if (s != null) {
                return fail(req, s, names.failure());
            }
        }
        LoginStatus s = answerKeys(pairs, answers);
        if (s != null) {
            return fail(req, s, auth.failure() != null ? auth.failure() : negotiator.failure());
        }
        return decideTransit(req, answers);
    }

    private LoginStatus answerKeys(List<KeyValue> pairs, List<KeyValue> answers) {
        Map<String, String> security = new LinkedHashMap<>();
        for (KeyValue kv : pairs) {
            KeyDefinition def = KeyDefinition.of(kv.key());
            if (def != null && def.security()) {
                if (stage != STAGE_SECURITY_NEGOTIATION) {
                    return LoginStatus.INITIATOR_ERROR; // RFC 7143 §6.3: security keys only in the security stage
                }
                security.put(kv.key(), kv.value());
            }
        }
        if (!security.isEmpty()) {
            LoginStatus s = auth.step(security, answers);
            if (s != null) {
                return s;
            }
        }
        for (KeyValue kv : pairs) {
            KeyDefinition def = KeyDefinition.of(kv.key());
            if (LoginNames.isName(kv.key()) || (def != null && def.security())) {
                continue;
            }
            LoginStatus s = negotiator.offer(kv, answers);
            if (s != null) {
                return s;
            }
        }
        if (stage == STAGE_LOGIN_OPERATIONAL_NEGOTIATION && !declaredOperational) {
            answers.add(negotiator.declaration());
            declaredOperational = true;
        }
        return null;
    }

    private LoginStep decideTransit(LoginRequest req, List<KeyValue> answers) {
        boolean transit = req.transit();
        if (transit && stage == STAGE_SECURITY_NEGOTIATION && !auth.mayLeaveSecurityStage()) {
            if (!auth.inProgress()) {
                return fail(req, LoginStatus.AUTHENTICATION_FAILURE, "transit out of security without CHAP");
            }
            transit = false; // RFC 7143 §6.3: the target answers T=0 until the CHAP exchange completes
        }
        if (transit && req.nsg() == STAGE_FULL_FEATURE_PHASE) {
            if (!declaredOperational) {
                answers.add(negotiator.declaration());
                declaredOperational = true;
            }
            return enterFullFeature(req, answers);
        }
        LoginStep step = respond(req, transit, transit ? req.nsg() : 0, answers, LoginStatus.SUCCESS);
        if (step.response().transit()) {
            stage = req.nsg();
        }
        return step;
    }

    private LoginStep enterFullFeature(LoginRequest req, List<KeyValue> answers) {
        SessionRequest session = new SessionRequest(names.initiatorName(), names.initiatorAlias(),
                names.discovery() ? null : names.target().name(), names.discovery(), isid, tsih, cid, req.cmdSn(),
                negotiator.result());
        byte[] text = TextCodec.encode(answers);
        if (text.length > LOGIN_SEGMENT_LIMIT) {
            return respond(req, false, 0, answers, LoginStatus.SUCCESS);
        }
        Admission admission = env.admit(session);
        if (admission == null || !admission.admitted()) {
            LoginStatus st = admission == null ? LoginStatus.TARGET_ERROR : admission.status();
            return fail(req, st, "session not admitted");
        }
        finished = true;
        LoginResponse r = new LoginResponse(true, false, stage, STAGE_FULL_FEATURE_PHASE, Codes.VERSION,
                Codes.VERSION, isid, admission.tsih(), req.initiatorTaskTag(), statSn++, admission.expCmdSn(),
                admission.maxCmdSn(), 0, 0, ByteBuffer.wrap(text));
        return new LoginStep(r, LoginStep.Outcome.FULL_FEATURE, session, admission, null);
    }

    private LoginStep respond(LoginRequest req, boolean transit, int nsg, List<KeyValue> answers, LoginStatus st) {
        byte[] text = TextCodec.encode(answers);
        if (text.length > LOGIN_SEGMENT_LIMIT) { // RFC 7143 §11.13.2: the C bit continues the reply
            pendingReply = new TextSplitter(text, LOGIN_SEGMENT_LIMIT);
            return emit(req, false, true, 0, pendingReply.next(), st);
        }
        return emit(req, transit, false, nsg, ByteBuffer.wrap(text), st);
    }

    private LoginStep emit(LoginRequest req, boolean transit, boolean cont, int nsg, ByteBuffer data, LoginStatus st) {
        LoginResponse r = new LoginResponse(transit, cont, stage, transit ? nsg : 0, Codes.VERSION, Codes.VERSION,
                isid, 0, req.initiatorTaskTag(), statSn++, req.cmdSn(), req.cmdSn(), st.statusClass,
                st.statusDetail, data);
        return new LoginStep(r, LoginStep.Outcome.CONTINUE, null, null, null);
    }

    private LoginStep fail(LoginRequest req, LoginStatus st, String reason) {
        finished = true;
        int csg = req.csg() == 2 || req.csg() == 3 ? 0 : req.csg();
        LoginResponse r = new LoginResponse(false, false, csg, 0, Codes.VERSION, Codes.VERSION, req.isid(),
                req.tsih(), req.initiatorTaskTag(), statSn++, req.cmdSn(), req.cmdSn(), st.statusClass,
                st.statusDetail, null);
        return new LoginStep(r, LoginStep.Outcome.FAILED, null, null, reason == null ? st.name() : reason);
    }

    /** For logs: which login text keys were seen (CHAP values redacted by {@link KeyValue#toString()}). */
    public List<KeyValue> seenKeys() {
        List<KeyValue> out = new ArrayList<>();
        seen.forEach((k, v) -> out.add(new KeyValue(k, v)));
        return out;
    }
}
