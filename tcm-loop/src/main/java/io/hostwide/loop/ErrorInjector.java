package io.hostwide.loop;

import java.util.concurrent.atomic.AtomicLong;

/**
 * scsi_debug's {@code every_nth} + {@code opts} (digest §5.2): which command gets which injected error.
 * {@code every_nth > 0} injects on every N-th command; {@code every_nth < 0} waits |N| commands and then injects on
 * every command. MEDIUM ERROR ({@link #OPT_MEDIUM_ERR}) is not counted: every READ touching the medium-error range
 * fails, as in scsi_debug.
 */
final class ErrorInjector {
    static final int OPT_MEDIUM_ERR = 0x2;
    static final int OPT_TIMEOUT = 0x4;
    static final int OPT_TRANSPORT_ERR = 0x10;
    static final int OPT_RARE_TSF = 0x800;
    static final int OPT_HOST_BUSY = 0x8000;
    static final int KNOWN = OPT_MEDIUM_ERR | OPT_TIMEOUT | OPT_TRANSPORT_ERR | OPT_RARE_TSF | OPT_HOST_BUSY;
    /** The opts that {@code every_nth} counts; at most one may be set (each hit command gets one error). */
    static final int COUNTED = OPT_TIMEOUT | OPT_TRANSPORT_ERR | OPT_RARE_TSF | OPT_HOST_BUSY;
    static final long MEDIUM_ERROR_START = 0x1234;
    static final int MEDIUM_ERROR_COUNT = 10;

    private final int everyNth;
    private final int opts;
    private final AtomicLong count = new AtomicLong();
    final AtomicLong injected = new AtomicLong();

    ErrorInjector(int everyNth, int opts) {
        this.everyNth = everyNth;
        this.opts = opts;
    }

    boolean mediumErrors() {
        return (opts & OPT_MEDIUM_ERR) != 0;
    }

    static boolean inMediumErrorRange(long lba, long blocks) {
        return lba < MEDIUM_ERROR_START + MEDIUM_ERROR_COUNT && lba + blocks > MEDIUM_ERROR_START;
    }

    /** The counted opts bit to inject on this command, or 0. */
    int next() {
        int counted = opts & COUNTED;
        if (everyNth == 0 || counted == 0) {
            return 0;
        }
        long n = count.incrementAndGet();
        boolean hit = everyNth > 0 ? n % everyNth == 0 : n > -(long) everyNth;
        if (!hit) {
            return 0;
        }
        injected.incrementAndGet();
        return Integer.lowestOneBit(counted);
    }
}
