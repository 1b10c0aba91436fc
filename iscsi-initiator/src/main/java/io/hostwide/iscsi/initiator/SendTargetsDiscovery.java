package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.discovery.Portal;
import io.hostwide.iscsi.login.KeyValue;
import io.hostwide.iscsi.login.TextCodec;
import io.hostwide.iscsi.pdu.DecodeError;
import io.hostwide.iscsi.pdu.DecodeResult;
import io.hostwide.iscsi.pdu.LogoutRequest;
import io.hostwide.iscsi.pdu.LogoutResponse;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.pdu.Reject;
import io.hostwide.iscsi.pdu.TextRequest;
import io.hostwide.iscsi.pdu.TextResponse;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.TextKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A Discovery session (RFC 7143 §4.3, Appendix C): log in at a portal with SessionType=Discovery, ask
 * {@code SendTargets=All} in one Text Request (§11.10, §13.3), collect the reply across continuation Text Responses
 * (C bit and Target Transfer Tag, §11.10.2-§11.11), log out. Credentials, digests and timeouts come from the
 * {@link InitiatorConfig} whose URL is the portal ({@link IscsiUrl#parsePortal}).
 *
 * <pre>{@code
 * InitiatorConfig d = SendTargetsDiscovery.config("url=iscsi://10.0.0.1,user=alice,secret_env=CHAP");
 * for (SendTargetsDiscovery.Target t : SendTargetsDiscovery.sendTargetsAll(d)) {
 *     try (IscsiHba hba = IscsiHba.connect(SendTargetsDiscovery.forTarget(d, t.name(), t.portals().get(0)))) { ... }
 * }
 * }</pre>
 */
public final class SendTargetsDiscovery {
    /** A reported target: its name and every TargetAddress given for it, in order. */
    public record Target(String name, List<Portal> portals) {
        public Target {
            portals = List.copyOf(portals);
        }
    }

    /** Bounds a misbehaving target: continuation rounds and the joined reply size. */
    private static final int MAX_ROUNDS = 1024;
    private static final int MAX_REPLY = 1 << 20;
    private static final int TEXT_ITT = 1;
    private static final int LOGOUT_ITT = 2;

    private SendTargetsDiscovery() {}

    /**
     * The {@code iscsi:} device kind's knobs ({@code user}, {@code secret}, {@code secret_env}, {@code initiator},
     * digests, {@code login_timeout}...) with {@code url=iscsi://HOST[:PORT]} naming a portal instead of a LUN.
     * Errors name the knob and never contain a secret.
     */
    public static InitiatorConfig config(String params) {
        return IscsiParams.parsePortal(params);
    }

    /** The config to log in to {@code targetName} at {@code portal}: {@code discovery}'s knobs, LUN 0 in the URL. */
    public static InitiatorConfig forTarget(InitiatorConfig discovery, String targetName, Portal portal) {
        return discovery.copyFor(new IscsiUrl(portal.host(), portal.port(), targetName, 0));
    }

    /**
     * Runs one Discovery session at {@code cfg}'s portal. A refused login is a {@link LoginException}; an
     * unreachable portal the connect error naming it; a target that answers SendTargets=Reject, rejects the Text
     * Request or sends malformed text, an IOException saying so.
     */
    public static List<Target> sendTargetsAll(InitiatorConfig cfg) throws IOException {
        cfg.validate();
        if (!cfg.url.isPortal()) {
            throw new IllegalArgumentException("url: discovery goes to a portal, iscsi://HOST[:PORT], got " + cfg.url);
        }
        String where = "discovery at " + cfg.url.host() + ":" + cfg.url.port();
        try (PduChannel ch = SessionLogin.connect(cfg)) {
            LoginExchange.Result r = new LoginExchange(ch, cfg, 0, 0, 1, 0).run(null);
            ch.fullFeature(r.params().headerDigest(), r.params().dataDigest(),
                    r.params().initiatorMaxRecvDataSegmentLength(), r.params().targetMaxRecvDataSegmentLength());
            ch.readTimeout(cfg.loginTimeoutMillis);   // a discovery session is a short request/response: bound it
            Exchange x = new Exchange(ch, where, r.expCmdSn(), r.statSn() + 1);
            List<Target> targets = parse(x.sendTargetsAll(), where);
            x.logout();
            return targets;
        }
    }

    /** TargetName starts a target; each TargetAddress after it is one of its portals (RFC 7143 Appendix C). */
    static List<Target> parse(List<KeyValue> pairs, String where) throws IOException {
        List<Target> out = new ArrayList<>();
        String name = null;
        List<Portal> portals = new ArrayList<>();
        for (KeyValue kv : pairs) {
            switch (kv.key()) {
                case TextKey.SEND_TARGETS -> throw new IOException(where + ": the target answered SendTargets="
                        + kv.value());
                case TextKey.TARGET_NAME -> {
                    if (name != null) {
                        out.add(new Target(name, portals));
                    }
                    name = kv.value();
                    portals = new ArrayList<>();
                }
                case TextKey.TARGET_ADDRESS -> {
                    if (name == null) {
                        throw new IOException(where + ": TargetAddress before any TargetName");
                    }
                    portals.add(targetAddress(kv.value(), where));
                }
                default -> {
                    // other keys (TargetAlias...) are not part of the listing
                }
            }
        }
        if (name != null) {
            out.add(new Target(name, portals));
        }
        return out;
    }

    /** {@code domainname[:port][,portal-group-tag]}, IPv6 literals in brackets (RFC 7143 §13.8). */
    static Portal targetAddress(String v, String where) throws IOException {
        try {
            String hostPort = v;
            // RFC 7143 §13.8 makes the tag optional; SendTargets replies carry it (Appendix C). Absent: tag 1.
            int tag = 1;
            int comma = v.lastIndexOf(',');
            if (comma >= 0) {
                tag = Integer.parseInt(v.substring(comma + 1));
                hostPort = v.substring(0, comma);
            }
            String bracketed = hostPort.startsWith("[") || hostPort.indexOf(':') == hostPort.lastIndexOf(':')
                    ? hostPort : "[" + hostPort + "]";   // a bare IPv6 literal without port
            IscsiUrl u = IscsiUrl.parsePortal("iscsi://" + bracketed);
            return new Portal(u.host(), u.port(), tag);
        } catch (IllegalArgumentException e) {
            throw new IOException(where + ": malformed TargetAddress '" + v + "' (" + e.getMessage() + ")");
        }
    }

    /** The full feature phase of the discovery session: CmdSN and ExpStatSN bookkeeping (RFC 7143 §4.2.2). */
    private static final class Exchange {
        private final PduChannel ch;
        private final String where;
        private int cmdSn;
        private int expStatSn;

        Exchange(PduChannel ch, String where, int cmdSn, int expStatSn) {
            this.ch = ch;
            this.where = where;
            this.cmdSn = cmdSn;
            this.expStatSn = expStatSn;
        }

        /** SendTargets=All, then an empty request per continuation until a response with F=1 (§11.10.4). */
        List<KeyValue> sendTargetsAll() throws IOException {
            byte[] ask = TextCodec.encode(List.of(new KeyValue(TextKey.SEND_TARGETS, TextKey.ALL)));
            ByteArrayOutputStream reply = new ByteArrayOutputStream();
            int ttt = Codes.RESERVED_TAG;
            ByteBuffer data = ByteBuffer.wrap(ask);
            for (int round = 0; ; round++) {
                if (round >= MAX_ROUNDS || reply.size() > MAX_REPLY) {
                    throw new IOException(where + ": SendTargets reply never ends");
                }
                ch.send(new TextRequest(false, true, false, 0, TEXT_ITT, ttt, cmdSn, expStatSn, data));
                cmdSn++;   // a non-immediate request takes a CmdSN (§4.2.2.1)
                TextResponse resp = awaitText();
                ByteBuffer d = resp.data().duplicate();
                byte[] b = new byte[d.remaining()];
                d.get(b);
                reply.writeBytes(b);
                if (resp.fin()) {
                    break;
                }
                ttt = resp.targetTransferTag();
                data = null;
            }
            TextCodec.Parsed parsed = TextCodec.parse(ByteBuffer.wrap(reply.toByteArray()));
            if (!parsed.ok()) {
                throw new IOException(where + ": malformed SendTargets text (" + parsed.error() + ")");
            }
            return parsed.pairs();
        }

        private TextResponse awaitText() throws IOException {
            for (int i = 0; i < MAX_ROUNDS; i++) {
                Pdu p = next();
                if (p instanceof TextResponse t && t.initiatorTaskTag() == TEXT_ITT) {
                    expStatSn = t.statSn() + 1;
                    return t;
                }
                if (p instanceof Reject rej) {
                    throw new IOException(where + ": the target rejected the SendTargets request (reason 0x"
                            + Integer.toHexString(rej.reason()) + ")");
                }
                // a NOP-In or an asynchronous message: nothing to answer in a session about to end
            }
            throw new IOException(where + ": no Text Response to SendTargets");
        }

        /** Logout (close the session, §11.14); failures only mean the target closed first. */
        void logout() {
            try {
                ch.send(new LogoutRequest(true, Codes.LOGOUT_CLOSE_SESSION, LOGOUT_ITT, 0, cmdSn, expStatSn));
                for (int i = 0; i < 4 && !(next() instanceof LogoutResponse); i++) {
                    // skip anything the target sent before its Logout Response
                }
            } catch (IOException e) {
                // the listing is complete; a target that drops the connection instead of answering is harmless here
            }
        }

        private Pdu next() throws IOException {
            DecodeResult d = ch.receive();
            if (d instanceof DecodeError e) {
                throw new IOException(where + ": bad PDU from the target (" + e.detail() + ")");
            }
            return (Pdu) d;
        }
    }
}
