package io.hostwide.tcm.backstore.rbd;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether this client handed the image's exclusive lock to another gateway, and whether it did since an operation
 * started: an EROFS then means "not the lock holder when it reached the OSD", not a fence (the backstore answers
 * BUSY without reopening its client). One counter, odd while the lock is lent: {@link ImageLock} calls {@link #lent}
 * before rbd_lock_release and {@link #taken} after acquiring it; an operation notes {@link #now} when it starts.
 *
 * <p>Why an epoch rather than a flag: a write admitted before a handover can run long after it (the writes of one LU
 * serialise on its range lock; a COMPARE AND WRITE waits for the one before it) and meet the released lock after this
 * gateway already took the lock back, when a flag would say "held" and the EROFS would read as a fence.
 */
final class LendEpoch {
    private final AtomicLong epoch = new AtomicLong();

    /** The lock is about to be released to another gateway. */
    void lent() {
        epoch.updateAndGet(e -> (e & 1) == 0 ? e + 1 : e);
    }

    /** This client holds the lock (again). */
    void taken() {
        epoch.updateAndGet(e -> (e & 1) == 1 ? e + 1 : e);
    }

    /** The current epoch, for {@link #lentSince}. */
    long now() {
        return epoch.get();
    }

    /** Whether the lock is lent now, or was lent at some time after {@code start} (an earlier {@link #now}). */
    boolean lentSince(long start) {
        long e = epoch.get();
        return (e & 1) == 1 || e != start;
    }
}
