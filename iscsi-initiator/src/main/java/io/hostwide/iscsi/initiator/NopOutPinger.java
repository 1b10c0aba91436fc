package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.pdu.NopOut;
import io.hostwide.iscsi.spec.Codes;
import java.io.IOException;

/**
 * Dead-connection detection (Linux's noop_out_interval/noop_out_timeout): a connection that has received nothing for
 * the interval gets a NOP-Out ping (RFC 7143 §11.18, ITT valid so the target must answer with a NOP-In); if nothing
 * at all arrives within the timeout after it, the connection has failed and the session recovers. Without pings an
 * idle session would notice a vanished target only at its next command's timeout.
 */
final class NopOutPinger implements Runnable {
    private final InitiatorSession session;
    private final long intervalNanos;
    private final long timeoutNanos;

    NopOutPinger(InitiatorSession session, long intervalMillis, long timeoutMillis) {
        this.session = session;
        this.intervalNanos = intervalMillis * 1_000_000L;
        this.timeoutNanos = timeoutMillis * 1_000_000L;
    }

    static void start(InitiatorSession session, InitiatorConfig cfg) {
        if (cfg.noopOutIntervalMillis == 0) {
            return;
        }
        Thread t = new Thread(new NopOutPinger(session, cfg.noopOutIntervalMillis, cfg.noopOutTimeoutMillis),
                "iscsi-nop-" + cfg.url.host() + ":" + cfg.url.port());
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void run() {
        long tickMillis = Math.max(10, Math.min(intervalNanos, timeoutNanos) / 4_000_000L);
        while (session.state() != InitiatorSession.State.CLOSED) {
            try {
                Thread.sleep(tickMillis);
            } catch (InterruptedException e) {
                return;
            }
            InitiatorSession.Live l = session.live();
            if (l == null) {
                continue;
            }
            for (IscsiConnection c : l.conns()) {
                check(l, c, System.nanoTime());
            }
        }
    }

    private void check(InitiatorSession.Live l, IscsiConnection c, long now) {
        if (c.pingSentAt != 0) {
            if (c.lastRx() - c.pingSentAt > 0) {
                c.pingSentAt = 0;   // something arrived after the ping: the connection lives
                session.stats.nopOutPingsAnswered.increment();
            } else if (now - c.pingSentAt > timeoutNanos) {
                session.connectionFailed(c, "connection " + c.cid + ": NOP-Out ping unanswered for "
                        + timeoutNanos / 1_000_000L + " ms");
                return;
            } else {
                return;
            }
        }
        if (now - c.lastRx() > intervalNanos) {
            c.pingSentAt = now | 1;   // never 0, which means "no ping outstanding"
            try {
                c.send(new NopOut(true, 0, session.pingItt(), Codes.RESERVED_TAG, l.window().current(),
                        c.expStatSn(), null));
            } catch (IOException e) {
                session.connectionFailed(c, "connection " + c.cid + ": " + e.getMessage());
            }
        }
    }
}
