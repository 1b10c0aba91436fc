package io.hostwide.iscsi.server;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Caps the connections that have not reached the full feature phase (RFC 7143 §3.2.3 login, §6): at most
 * {@code maxTotal} at once, and at most {@code maxPerAddress} from one source address. Such a connection has proved
 * nothing yet, so it may not hold more than a small buffer and a thread for more than the login timeout, and a loop of
 * {@code connect()} may not hold many of them at all: the acceptor asks {@link #tryEnter} before it starts a
 * connection, and refuses (closes) it when this says no. The connection gives its place back exactly once, when it
 * enters the full feature phase or closes before that.
 *
 * <p>A refusal is counted; one log line at most every {@code logIntervalNanos} says how many were refused since the
 * previous line and why, so a flood cannot flood the log too. The clock is injected so tests step it by hand.
 * Thread-safe: the acceptor threads enter, connection threads leave; a monitor suffices at accept rates.
 */
final class LoginGate {
    static final Logger LOG = Logger.getLogger(LoginGate.class.getName());

    /** What {@link #tryEnter} decided. */
    enum Verdict { ADMITTED, OVER_TOTAL, OVER_ADDRESS }

    private final int maxTotal;
    private final int maxPerAddress;
    private final long logIntervalNanos;
    private final LongSupplier nanoTime;
    private final Map<InetAddress, Integer> byAddress = new HashMap<>();
    private int total;
    private long refusedOverTotal;
    private long refusedOverAddress;
    private long refusedSinceLog;
    private long lastLogNanos;
    private boolean loggedOnce;

    LoginGate(int maxTotal, int maxPerAddress, long logIntervalNanos, LongSupplier nanoTime) {
        if (maxTotal < 1 || maxPerAddress < 1) {
            throw new IllegalArgumentException("login limits must be >= 1: " + maxTotal + ", " + maxPerAddress);
        }
        this.maxTotal = maxTotal;
        this.maxPerAddress = maxPerAddress;
        this.logIntervalNanos = logIntervalNanos;
        this.nanoTime = nanoTime;
    }

    /** Takes a place for a new connection from {@code from}, or says which cap refuses it (and counts that). */
    synchronized Verdict tryEnter(InetAddress from) {
        int mine = byAddress.getOrDefault(from, 0);
        Verdict v = total >= maxTotal ? Verdict.OVER_TOTAL
                : mine >= maxPerAddress ? Verdict.OVER_ADDRESS : Verdict.ADMITTED;
        switch (v) {
            case ADMITTED -> {
                total++;
                byAddress.put(from, mine + 1);
            }
            case OVER_TOTAL -> refused(v, from, ++refusedOverTotal);
            case OVER_ADDRESS -> refused(v, from, ++refusedOverAddress);
        }
        return v;
    }

    /** Gives back the place {@link #tryEnter} gave a connection from {@code from}; once per admitted connection. */
    synchronized void leave(InetAddress from) {
        Integer mine = byAddress.get(from);
        if (mine == null || total == 0) {
            throw new IllegalStateException("login place of " + from + " given back twice");
        }
        total--;
        if (mine == 1) {
            byAddress.remove(from); // no entry per address once its connections are gone: the map stays small
        } else {
            byAddress.put(from, mine - 1);
        }
    }

    private void refused(Verdict why, InetAddress from, long count) {
        refusedSinceLog++;
        long now = nanoTime.getAsLong();
        if (loggedOnce && now - lastLogNanos < logIntervalNanos) {
            return;
        }
        loggedOnce = true;
        lastLogNanos = now;
        long n = refusedSinceLog;
        refusedSinceLog = 0;
        String cap = why == Verdict.OVER_TOTAL
                ? "the limit of " + maxTotal + " connections not yet logged in is reached"
                : "the limit of " + maxPerAddress + " per address is reached by " + from.getHostAddress();
        LOG.log(Level.WARNING, "iSCSI: refused " + n + " new connection" + (n == 1 ? "" : "s")
                + " since the last such line (at most one every " + logIntervalNanos / 1_000_000_000L + " s): " + cap
                + " (limits: " + maxTotal + " overall, " + maxPerAddress + " per address; "
                + (refusedOverTotal + refusedOverAddress) + " refused in all)");
    }

    /** Connections admitted and not yet in the full feature phase (nor closed). */
    synchronized int pending() {
        return total;
    }

    /** Of {@link #pending()}, those from {@code from}. */
    synchronized int pending(InetAddress from) {
        return byAddress.getOrDefault(from, 0);
    }

    synchronized long refusedOverTotal() {
        return refusedOverTotal;
    }

    synchronized long refusedOverAddress() {
        return refusedOverAddress;
    }

    int maxTotal() {
        return maxTotal;
    }

    int maxPerAddress() {
        return maxPerAddress;
    }
}
