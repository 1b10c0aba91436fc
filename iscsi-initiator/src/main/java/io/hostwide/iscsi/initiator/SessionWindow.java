package io.hostwide.iscsi.initiator;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The initiator's view of the session's command window, RFC 7143 §4.2.2.1: CmdSN of the next non-immediate command,
 * and the target's ExpCmdSN and MaxCmdSN, compared in serial arithmetic (RFC 1982). A command may go out when
 * CmdSN <= MaxCmdSN; immediate PDUs carry the current CmdSN without taking it. The window is the host-wide tag
 * space of the SCSI host: {@code can_queue} is its size at login.
 */
final class SessionWindow {
    private final AtomicInteger cmdSn = new AtomicInteger();
    private final AtomicInteger expCmdSn = new AtomicInteger();
    private final AtomicInteger maxCmdSn = new AtomicInteger();

    SessionWindow(int expCmdSn, int maxCmdSn) {
        this.cmdSn.set(expCmdSn);
        this.expCmdSn.set(expCmdSn);
        this.maxCmdSn.set(maxCmdSn);
    }

    /** a < b in 32-bit serial arithmetic. */
    static boolean lt(int a, int b) {
        return a != b && (a - b) < 0;
    }

    /** The window size MaxCmdSN - ExpCmdSN + 1 (0 when closed). */
    int size() {
        int n = maxCmdSn.get() - expCmdSn.get() + 1;
        return Math.max(0, n);
    }

    /** Takes a CmdSN for a non-immediate command; {@code Long.MIN_VALUE} when the window is closed. */
    long take() {
        for (;;) {
            int n = cmdSn.get();
            if (lt(maxCmdSn.get(), n)) {
                return Long.MIN_VALUE;
            }
            if (cmdSn.compareAndSet(n, n + 1)) {
                return n;
            }
        }
    }

    /** The CmdSN an immediate PDU carries (not advanced, RFC 7143 §3.2.2.1). */
    int current() {
        return cmdSn.get();
    }

    /**
     * Folds in ExpCmdSN/MaxCmdSN from a target PDU. RFC 7143 §4.2.2.1: values with MaxCmdSN < ExpCmdSN - 1 are
     * ignored, and neither ever moves backwards.
     */
    void update(int exp, int max) {
        if (lt(max, exp - 1)) {
            return;
        }
        raise(expCmdSn, exp);
        raise(maxCmdSn, max);
    }

    private static void raise(AtomicInteger a, int v) {
        for (;;) {
            int cur = a.get();
            if (!lt(cur, v) || a.compareAndSet(cur, v)) {
                return;
            }
        }
    }
}
