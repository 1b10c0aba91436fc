package io.hostwide.iscsi.server;

/**
 * The session's command window, RFC 7143 §3.2.2.1 and §4.2.2.1: commands are delivered in CmdSN order; one whose
 * CmdSN lies outside [ExpCmdSN, MaxCmdSN] is silently ignored. The window is the session's queue depth less the
 * commands still outstanding, so an initiator can never have more than {@code queueDepth} non-immediate commands in
 * the target at once: MaxCmdSN = ExpCmdSN - 1 + (queueDepth - outstanding), and MaxCmdSN = ExpCmdSN - 1 closes it.
 * Comparisons use serial number arithmetic (RFC 1982, 32 bits). Guarded by the session's lock; not thread-safe.
 */
final class CmdSnWindow {
    /** {@link #classify} results. */
    static final int IN_ORDER = 0;
    static final int AHEAD = 1;
    static final int OUTSIDE = 2;

    private final int queueDepth;
    private int expCmdSn;
    private int outstanding;

    CmdSnWindow(int firstCmdSn, int queueDepth) {
        if (queueDepth < 1) {
            throw new IllegalArgumentException("queue depth must be at least 1");
        }
        this.expCmdSn = firstCmdSn;
        this.queueDepth = queueDepth;
    }

    int expCmdSn() {
        return expCmdSn;
    }

    int maxCmdSn() {
        return expCmdSn - 1 + (queueDepth - outstanding);
    }

    int outstanding() {
        return outstanding;
    }

    /** Where a non-immediate command's CmdSN falls. */
    int classify(int cmdSn) {
        int ahead = cmdSn - expCmdSn; // serial arithmetic: the signed difference
        if (ahead == 0 && outstanding < queueDepth) {
            return IN_ORDER;
        }
        if (ahead > 0 && ahead <= maxCmdSn() - expCmdSn) {
            return AHEAD;
        }
        return OUTSIDE;
    }

    /** The command at ExpCmdSN is delivered: the window slides and one more command is outstanding. */
    void deliver() {
        expCmdSn++;
        outstanding++;
    }

    /** An outstanding command finished (response sent or command dropped with its connection). */
    void complete() {
        if (outstanding > 0) {
            outstanding--;
        }
    }
}
