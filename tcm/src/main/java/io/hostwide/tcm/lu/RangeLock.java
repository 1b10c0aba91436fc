package io.hostwide.tcm.lu;

import java.util.concurrent.locks.StampedLock;

/**
 * Striped LBA-range locks that make COMPARE AND WRITE, WRITE ATOMIC and ORWRITE atomic with respect to other
 * commands of the same blocks (SBC-4 §5.3, §4.29). Plain writes take the stripes they touch shared; atomic
 * commands take them exclusive. Reads are optimistic ({@link #tryOptimisticRead} then {@link #validate}): they
 * take nothing unless an atomic command held one of their stripes meanwhile, and then read again shared, so a READ
 * never returns a half-done COMPARE AND WRITE and costs no atomic operation otherwise. A range maps to a 64-bit
 * stripe mask; stripes are always locked in ascending order, so two commands never deadlock.
 */
public final class RangeLock {
    /** Blocks per stripe unit: 2^7 = 128 blocks. */
    private static final int UNIT_SHIFT = 7;
    private static final int STRIPES = 64;

    private final StampedLock[] stripes = new StampedLock[STRIPES];

    public RangeLock() {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new StampedLock();
        }
    }

    /** The stripes covering [lba, lba + blocks). */
    public static long mask(long lba, long blocks) {
        if (blocks <= 0) {
            return 0;
        }
        long first = lba >>> UNIT_SHIFT;
        long last = (lba + blocks - 1) >>> UNIT_SHIFT;
        if (last - first >= STRIPES - 1) {
            return -1L;
        }
        long m = 0;
        for (long u = first; u <= last; u++) {
            m |= 1L << (int) (u & (STRIPES - 1));
        }
        return m;
    }

    /** Takes the stripes of {@code mask} shared; returns stamps packed for {@link #unlockShared}. */
    public void lockShared(long mask, long[] stamps) {
        for (long m = mask; m != 0; m &= m - 1) {
            int i = Long.numberOfTrailingZeros(m);
            stamps[i] = stripes[i].readLock();
        }
    }

    /**
     * {@link #lockShared} without waiting: false, holding nothing, when a stripe of {@code mask} is held exclusive
     * (an atomic command runs there), for a write on the submitting thread that must not block.
     */
    public boolean tryLockShared(long mask, long[] stamps) {
        for (long m = mask; m != 0; m &= m - 1) {
            int i = Long.numberOfTrailingZeros(m);
            long s = stripes[i].tryReadLock();
            if (s == 0) {
                unlockShared(mask & ~m, stamps); // the stripes below i, taken in ascending order
                return false;
            }
            stamps[i] = s;
        }
        return true;
    }

    public void unlockShared(long mask, long[] stamps) {
        for (long m = mask; m != 0; m &= m - 1) {
            int i = Long.numberOfTrailingZeros(m);
            stripes[i].unlockRead(stamps[i]);
        }
    }

    /**
     * Releases stripes taken shared by another thread, or without the stamps at hand: an asynchronous write takes
     * its range on the submitting thread and the backstore's completion thread gives it back.
     */
    public void unlockSharedUnstamped(long mask) {
        for (long m = mask; m != 0; m &= m - 1) {
            stripes[Long.numberOfTrailingZeros(m)].asReadLock().unlock();
        }
    }

    /**
     * Optimistic stamps for a read of {@code mask}; false when a stripe is held exclusive now (then lock shared).
     * Plain writers hold stripes shared and do not invalidate these stamps: a READ racing a WRITE may see old or
     * new data, as SCSI allows; only atomic commands must never be seen half done.
     */
    public boolean tryOptimisticRead(long mask, long[] stamps) {
        for (long m = mask; m != 0; m &= m - 1) {
            int i = Long.numberOfTrailingZeros(m);
            long s = stripes[i].tryOptimisticRead();
            if (s == 0) {
                return false;
            }
            stamps[i] = s;
        }
        return true;
    }

    /** True when no stripe of {@code mask} was taken exclusive since {@link #tryOptimisticRead} (acquire fence). */
    public boolean validate(long mask, long[] stamps) {
        for (long m = mask; m != 0; m &= m - 1) {
            int i = Long.numberOfTrailingZeros(m);
            if (!stripes[i].validate(stamps[i])) {
                return false;
            }
        }
        return true;
    }

    public void lockExclusive(long mask, long[] stamps) {
        for (long m = mask; m != 0; m &= m - 1) {
            int i = Long.numberOfTrailingZeros(m);
            stamps[i] = stripes[i].writeLock();
        }
    }

    public void unlockExclusive(long mask, long[] stamps) {
        for (long m = mask; m != 0; m &= m - 1) {
            int i = Long.numberOfTrailingZeros(m);
            stripes[i].unlockWrite(stamps[i]);
        }
    }

    /** Stamp storage for one locker (one per thread; see {@link #stamps()}). */
    public static long[] newStamps() { return new long[STRIPES]; }

    private static final ThreadLocal<long[]> STAMPS = ThreadLocal.withInitial(RangeLock::newStamps);

    /** This thread's stamp array (a thread holds at most one range at a time). */
    public static long[] stamps() { return STAMPS.get(); }
}
