package io.hostwide.tcm.backstore;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory all RAM backstores of a process may hold together, in bytes of pages. A thin RAM LUN reserves a page's
 * worth before it allocates one and gives it back when the page is unmapped or the LUN closed; a thick one reserves
 * its whole size when it is created. When a reservation does not fit, the write that needed it is refused with
 * SPACE ALLOCATION FAILED WRITE PROTECT instead of the JVM running out of heap, which would fail commands and
 * threads at random. Lock-free: one CAS per page allocated or freed, nothing on reads or on writes into pages that
 * exist.
 */
public final class RamBudget {
    private final long limit;
    private final AtomicLong reserved = new AtomicLong();

    /** @param limitBytes the most all RAM backstores sharing this budget may reserve; positive */
    public RamBudget(long limitBytes) {
        if (limitBytes <= 0) {
            throw new IllegalArgumentException("a RAM budget must be positive: " + limitBytes);
        }
        this.limit = limitBytes;
    }

    /** A budget that never refuses (tests, embedders that bound memory otherwise). */
    public static RamBudget unlimited() {
        return new RamBudget(Long.MAX_VALUE);
    }

    /** Heap that is never for pages: the core, sessions and commands (about 30 MiB live) and the collector's room. */
    public static final long RESERVED_HEAP = 96L << 20;

    /** The default for this JVM: {@link #defaultLimit(long, long)} of the heap it may grow to, all of it old. */
    public static long defaultLimit() {
        long heap = Runtime.getRuntime().maxMemory();
        return defaultLimit(heap, heap);
    }

    /**
     * The default for a heap of {@code heapBytes} whose old generation holds at most {@code oldGenBytes}: half the
     * heap, and never more than {@link #maxLimit(long)}; at least one page. RAM pages are long-lived, so they end
     * up in the old generation, which with serve's collector (ParallelGC, NewRatio 2) is two thirds of the heap and
     * cannot grow into the young one: pages beyond it stay in the young generation, and every collection then
     * copies them or falls back to a full one (measured: 1 GiB of pages in a 1.5 GiB heap filled its 1 GiB old
     * generation). A heap nearly full of pages fails allocations anywhere (a reader thread, a session) and spends
     * its time collecting, which is how issue 12's 16 TiB LUN hung.
     */
    public static long defaultLimit(long heapBytes, long oldGenBytes) {
        return Math.max(RamBackstore.PAGE_SIZE, Math.min(heapBytes / 2, maxLimit(oldGenBytes)));
    }

    /**
     * The largest budget that is safe: what the old generation holds besides {@link #RESERVED_HEAP}. Measured:
     * a budget of the heap less 96 MiB (672 MiB of a 768 MiB heap, whose old generation is 512 MiB) ran the heap
     * out at 656 MiB of pages.
     */
    public static long maxLimit(long oldGenBytes) {
        return oldGenBytes - RESERVED_HEAP;
    }

    /** Reserves {@code bytes} if they fit under the limit; false (and nothing reserved) if not. */
    public boolean tryReserve(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative reservation: " + bytes);
        }
        long r;
        do {
            r = reserved.get();
            if (bytes > limit - r) {
                return false;
            }
        } while (!reserved.compareAndSet(r, r + bytes));
        return true;
    }

    /** Gives back {@code bytes} reserved earlier. */
    public void release(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative release: " + bytes);
        }
        long after = reserved.addAndGet(-bytes);
        if (after < 0) { // a bug in a caller; keep the budget usable rather than let it refuse forever
            reserved.addAndGet(-after);
            throw new IllegalStateException("released more than was reserved (" + (-after) + " bytes too many)");
        }
    }

    /** Bytes reserved now. */
    public long used() {
        return reserved.get();
    }

    public long limit() {
        return limit;
    }

    @Override
    public String toString() {
        return "RamBudget[" + used() + " of " + limit + " bytes]";
    }
}
