package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.login.NegotiatedParameters;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * Builds a logged-in {@link InitiatorSession.Live}: the leading login (TSIH 0, CID 0; with our fixed ISID it
 * reinstates any earlier session of ours, RFC 7143 §6.3.5), then connections 1..n-1 joining it with its TSIH (MC/S)
 * while the target's MaxConnections allows. A connection that cannot join leaves the session with fewer connections;
 * hardware queues map onto the ones there are.
 */
final class SessionLogin {
    private static final Logger LOG = Logger.getLogger(SessionLogin.class.getName());

    private final InitiatorSession session;
    private final InitiatorConfig cfg;
    private final AtomicInteger loginItt = new AtomicInteger();
    private int cmdSnHint = 1;

    SessionLogin(InitiatorSession session, InitiatorConfig cfg) {
        this.session = session;
        this.cfg = cfg;
    }

    InitiatorSession.Live login(int generation, int wanted) throws IOException {
        PduChannel lead = connect();
        LoginExchange.Result r;
        try {
            r = new LoginExchange(lead, cfg, 0, 0, cmdSnHint, nextItt()).run(null);
            lead.fullFeature(r.params().headerDigest(), r.params().dataDigest(),
                    r.params().initiatorMaxRecvDataSegmentLength(), r.params().targetMaxRecvDataSegmentLength());
        } catch (IOException | RuntimeException e) {
            lead.close();
            throw e;
        }
        SessionWindow w = new SessionWindow(r.expCmdSn(), r.maxCmdSn());
        cmdSnHint = r.expCmdSn();
        List<IscsiConnection> conns = new ArrayList<>();
        conns.add(new IscsiConnection(session, lead, 0, generation, r.params(), r.statSn(), w));
        int n = Math.min(wanted, r.params().maxConnections());
        for (int cid = 1; cid < n; cid++) {
            IscsiConnection c = join(r, cid, generation, w);
            if (c == null) {
                break;
            }
            conns.add(c);
        }
        return new InitiatorSession.Live(generation, conns.toArray(new IscsiConnection[0]), w, r.params());
    }

    /** Adds connection {@code cid} to the session (RFC 7143 §6.3: same ISID, the session's TSIH); null on failure. */
    private IscsiConnection join(LoginExchange.Result lead, int cid, int generation, SessionWindow w) {
        PduChannel ch = null;
        try {
            ch = connect();
            LoginExchange.Result r = new LoginExchange(ch, cfg, lead.tsih(), cid, w.current(), nextItt())
                    .run(lead.params());
            NegotiatedParameters p = r.params();
            ch.fullFeature(p.headerDigest(), p.dataDigest(), p.initiatorMaxRecvDataSegmentLength(),
                    p.targetMaxRecvDataSegmentLength());
            w.update(r.expCmdSn(), r.maxCmdSn());
            return new IscsiConnection(session, ch, cid, generation, p, r.statSn(), w);
        } catch (IOException | RuntimeException e) {
            LOG.info("iSCSI connection " + cid + " to " + cfg.url + " not added: " + e.getMessage());
            if (ch != null) {
                ch.close();
            }
            return null;
        }
    }

    private int nextItt() {
        return loginItt.incrementAndGet() & 0x7fff_ffff;
    }

    /** TCP connect with errors that name the portal and the cause (refused, unknown host, timeout). */
    private PduChannel connect() throws IOException {
        return connect(cfg);
    }

    /** TCP connect to {@code cfg}'s portal; errors name the portal and the cause. */
    static PduChannel connect(InitiatorConfig cfg) throws IOException {
        String where = cfg.url.host() + ":" + cfg.url.port();
        InetSocketAddress a = new InetSocketAddress(cfg.url.host(), cfg.url.port());
        if (a.isUnresolved()) {
            throw new UnknownHostException("cannot resolve iSCSI portal host " + cfg.url.host());
        }
        try {
            return PduChannel.connect(a, (int) Math.min(Integer.MAX_VALUE, cfg.loginTimeoutMillis));
        } catch (ConnectException e) {
            throw new ConnectException("cannot connect to iSCSI portal " + where + ": " + e.getMessage());
        } catch (SocketTimeoutException e) {
            throw new SocketTimeoutException("iSCSI portal " + where + " did not answer within "
                    + cfg.loginTimeoutMillis + " ms");
        }
    }
}
