package io.hostwide.tcm.spi;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Why a backstore operation failed, for the operator: every data-path {@code IOException} that a handler turns into
 * sense (MEDIUM ERROR, WRITE ERROR, ...) is reported here with the device, the operation and the LBA, so the log
 * says what the initiator's sense cannot. Rate-limited per device: at most {@code burst} lines per window, then one
 * line that counts the ones left out, so a failing disk can neither flood the log, nor slow the I/O threads that keep
 * failing on it, nor hide another device's first errors. The error path only; nothing here runs for a command that
 * succeeds.
 */
public final class DataPathErrors {
    /** The process-wide log, logger {@code io.hostwide.tcm.datapath}: 10 lines per device per 10 s. */
    public static final DataPathErrors LOG = new DataPathErrors(Logger.getLogger("io.hostwide.tcm.datapath"),
            System::nanoTime, 10, TimeUnit.SECONDS.toNanos(10));

    /** Windows kept before expired ones are dropped: bounds the map whatever the device names. */
    private static final int MAX_DEVICES = 1024;

    private final Logger logger;
    private final LongSupplier nanoTime;
    private final int burst;
    private final long windowNanos;
    // Guarded by this: the error path is rare and a lock keeps each window and its counts consistent.
    private final Map<String, Window> windows = new HashMap<>();
    private long reported;
    private long suppressedTotal;

    /** One device's current window. */
    private static final class Window {
        long start;
        int logged;
        long notLogged;

        Window(long start) { this.start = start; }
    }

    DataPathErrors(Logger logger, LongSupplier nanoTime, int burst, long windowNanos) {
        if (burst < 1 || windowNanos <= 0) {
            throw new IllegalArgumentException("burst >= 1 and a positive window");
        }
        this.logger = logger;
        this.nanoTime = nanoTime;
        this.burst = burst;
        this.windowNanos = windowNanos;
    }

    /**
     * Reports one failed operation. {@code lba} and {@code blocks} are -1 where they do not apply (a cache flush).
     * Never throws; the caller still fails the command with its sense.
     */
    public void report(String device, String operation, long lba, long blocks, Throwable cause) {
        long skipped;
        synchronized (this) {
            reported++;
            if (cause instanceof BackstoreStatusException s && s.loggedByBackstore()) {
                suppressedTotal++; // the backstore logs the episode once (BackstoreStatusException)
                return;
            }
            long now = nanoTime.getAsLong();
            if (windows.size() >= MAX_DEVICES && !windows.containsKey(device)) {
                windows.values().removeIf(w -> now - w.start >= windowNanos && w.notLogged == 0);
            }
            Window w = windows.computeIfAbsent(device, k -> new Window(now));
            skipped = 0;
            if (now - w.start >= windowNanos) {
                skipped = w.notLogged;
                w.notLogged = 0;
                w.logged = 0;
                w.start = now;
            }
            if (w.logged >= burst) {
                w.notLogged++;
                suppressedTotal++;
                return;
            }
            w.logged++;
        }
        if (skipped > 0) {
            logger.warning(device + ": " + skipped + " more data-path errors were not logged (at most " + burst
                    + " per " + TimeUnit.NANOSECONDS.toSeconds(windowNanos) + " s)");
        }
        StringBuilder m = new StringBuilder(device).append(": ").append(operation);
        if (blocks >= 0) {
            m.append(" of ").append(blocks).append(blocks == 1 ? " block" : " blocks");
        }
        if (lba >= 0) {
            m.append(" at LBA ").append(lba);
        }
        m.append(" failed: ").append(cause);
        logger.log(Level.WARNING, m.toString());
        if (logger.isLoggable(Level.FINE)) {
            logger.log(Level.FINE, device + ": stack of the failure above", cause);
        }
    }

    /** Failures reported since start, logged or not. */
    public synchronized long reported() {
        return reported;
    }

    /** Failures left out of the log since start: by the rate limit, or because the backstore logged them. */
    public synchronized long suppressed() {
        return suppressedTotal;
    }
}
