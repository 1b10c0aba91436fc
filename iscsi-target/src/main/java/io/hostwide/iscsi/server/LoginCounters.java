package io.hostwide.iscsi.server;

import io.hostwide.iscsi.spec.LoginStatus;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * How logins ended, for metrics: successes (normal and discovery sessions apart) and failures by the Login
 * Response status they were answered with (RFC 7143 §11.13.5), plus logins that never finished in time and
 * connections that closed mid-login. Counted once per login, on the connection's reader thread; striped counters,
 * so the keepalive thread's timeouts and readers never contend on a lock.
 */
public final class LoginCounters {
    /** Failure reasons that are no Login Response status. */
    public static final String TIMEOUT = "timeout";

    private final LongAdder normal = new LongAdder();
    private final LongAdder discovery = new LongAdder();
    private final LongAdder[] byStatus = new LongAdder[LoginStatus.values().length];
    private final LongAdder timeouts = new LongAdder();
    private final LongAdder unknownStatus = new LongAdder();

    LoginCounters() {
        for (int i = 0; i < byStatus.length; i++) {
            byStatus[i] = new LongAdder();
        }
    }

    void succeeded(boolean discoverySession) {
        (discoverySession ? discovery : normal).increment();
    }

    void failed(int statusClass, int statusDetail) {
        for (LoginStatus s : LoginStatus.values()) {
            if (s.statusClass == statusClass && s.statusDetail == statusDetail) {
                byStatus[s.ordinal()].increment();
                return;
            }
        }
        unknownStatus.increment();
    }

    void timedOut() {
        timeouts.increment();
    }

    /** Successful logins: normal sessions, discovery sessions. */
    public long normalLogins() { return normal.sum(); }

    public long discoveryLogins() { return discovery.sum(); }

    /**
     * Failed logins by reason: the lower-case Login Response status name ({@code authentication_failure},
     * {@code not_found}, ...), {@code timeout}, or {@code other} for a status this table lacks. Every reason is
     * present, zero or not, so a metric series exists before its first failure.
     */
    public Map<String, Long> failures() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (LoginStatus s : LoginStatus.values()) {
            if (s != LoginStatus.SUCCESS) {
                m.put(s.name().toLowerCase(java.util.Locale.ROOT), byStatus[s.ordinal()].sum());
            }
        }
        m.put(TIMEOUT, timeouts.sum());
        m.put("other", unknownStatus.sum());
        return m;
    }
}
