package io.hostwide.iscsi.server;

import io.hostwide.iscsi.pdu.NopIn;
import io.hostwide.iscsi.spec.Codes;

/**
 * Target-initiated NOP-In pings (RFC 7143 §11.19): a connection silent for {@code intervalNanos} gets a NOP-In with a
 * Target Transfer Tag and ITT 0xffffffff, which the initiator must answer with a NOP-Out carrying the same TTT
 * (§11.18). No answer within {@code timeoutNanos} means the connection is dead: it closes, and at ERL 0 its tasks end.
 * The ping does not advance StatSN (§11.19: its ITT is the reserved tag). State is read and written by the reader thread
 * (answers, traffic) and the server's keepalive thread (checks); volatile fields suffice because each side only
 * overwrites what it owns: the reader clears {@code pendingTtt}, the checker sets it.
 */
final class Keepalive {
    private final long intervalNanos;
    private final long timeoutNanos;
    private volatile long lastHeardNanos = System.nanoTime();
    private volatile int pendingTtt = Codes.RESERVED_TAG;
    private volatile long pingSentNanos;
    private int nextTtt = 0x4e4f_0000; // "NO.."

    Keepalive(long intervalNanos, long timeoutNanos) {
        this.intervalNanos = intervalNanos;
        this.timeoutNanos = timeoutNanos;
    }

    /** Reader: anything arrived. */
    void heard(long now) {
        lastHeardNanos = now;
    }

    /** Reader: a NOP-Out with ITT 0xffffffff answered a ping. */
    void answered(int ttt) {
        if (ttt == pendingTtt) {
            pendingTtt = Codes.RESERVED_TAG;
        }
    }

    /** What the checker must do now: nothing, ping, or close. */
    static final int NOTHING = 0;
    static final int PING = 1;
    static final int DEAD = 2;

    int check(long now) {
        if (pendingTtt != Codes.RESERVED_TAG) {
            return now - pingSentNanos > timeoutNanos ? DEAD : NOTHING;
        }
        return now - lastHeardNanos > intervalNanos ? PING : NOTHING;
    }

    /** Checker: sends the ping through the connection's writer. */
    void ping(Connection c, IscsiSession s, long now) {
        int ttt = nextTtt++;
        if (ttt == Codes.RESERVED_TAG) {
            ttt = nextTtt++;
        }
        pingSentNanos = now;
        pendingTtt = ttt;
        int t = ttt;
        c.writer.send(sn -> new NopIn(0, Codes.RESERVED_TAG, t, sn, s.expCmdSn(), s.maxCmdSn(), null), false);
        c.writer.flush();
    }
}
