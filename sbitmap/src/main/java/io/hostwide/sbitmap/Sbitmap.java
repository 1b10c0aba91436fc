package io.hostwide.sbitmap;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * The word-sharded scalable bitmap, without waiting ({@code struct sbitmap},
 * digest §1.2–§1.5). Used on its own where nobody sleeps for a bit (blk-mq's
 * ctx_map, the SCSI budget map) and inside {@link ShardedSbitmapQueue}.
 *
 * <p>Layout: one {@code long[]} holding, per word, {@code word} (allocated bits),
 * {@code cleared} (freed but not yet returned) and {@code swap_lock} (serialises
 * folding {@code cleared} into {@code word}) on one padded 128-byte block, so no
 * two words share a cache line or an adjacent-line prefetch pair. Block 0 is
 * padding. The word count is fixed by the capacity; {@link #resize} only moves
 * {@code depth}.
 *
 * <p>Hints: {@code nrHints} slots, each on its own 64-byte block of an
 * {@code int[]}; written with plain stores (a stale hint only costs a longer
 * search, as with the kernel's per-CPU hints).
 *
 * <p>Shallow depth is whole-map (see {@link SbitmapMath#shallowWordDepth}).
 */
public final class Sbitmap {

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    /** longs per word block: 128 bytes. */
    private static final int STRIDE = 16;
    private static final int WORD = 0;
    private static final int CLEARED = 1;
    private static final int SWAP_LOCK = 2;
    /** ints per hint slot: 64 bytes. */
    private static final int HINT_STRIDE = 16;

    private final long[] map;
    private final int[] hints;
    private final int nrHints;
    private final int shift;
    private final int capacity;
    private final int allocatedWords;
    private final boolean roundRobin;
    /** Usable bits; written by {@link #resize}, read once per operation. */
    private volatile int depth;

    public Sbitmap(SbitmapConfig config) {
        this.capacity = config.capacity();
        this.shift = SbitmapMath.effectiveShift(config.shift(), config.depth());
        this.allocatedWords = SbitmapMath.mapNr(capacity, shift);
        this.map = new long[(allocatedWords + 1) * STRIDE];
        this.roundRobin = config.roundRobin();
        this.nrHints = config.nrHints();
        this.hints = new int[(nrHints + 1) * HINT_STRIDE];
        this.depth = config.depth();
        for (int i = 0; i < nrHints; i++) {
            hints[(i + 1) * HINT_STRIDE] = SbitmapMath.randomHint(i, config.depth(), shift);
        }
    }

    public int depth() {
        return depth;
    }

    public int capacity() {
        return capacity;
    }

    public int shift() {
        return shift;
    }

    public int bitsPerWord() {
        return 1 << shift;
    }

    /** map_nr at the current depth. */
    public int mapNr() {
        return SbitmapMath.mapNr(depth, shift);
    }

    public boolean roundRobin() {
        return roundRobin;
    }

    public int nrHints() {
        return nrHints;
    }

    /** The current hint of slot {@code slot} (debugfs {@code alloc_hint}). */
    public int allocHint(int slot) {
        return hints[hintAt(slot)];
    }

    private int hintAt(int slot) {
        return (Objects.checkIndex(slot, nrHints) + 1) * HINT_STRIDE;
    }

    private static int at(int index) {
        return (index + 1) * STRIDE;
    }

    /** Claims a free bit starting from {@code hint}'s slot, or returns -1 ({@code sbitmap_get}). */
    public int get(int hint) {
        return get(hint, Integer.MAX_VALUE);
    }

    /** As {@link #get} within a whole-map shallow depth ({@code sbitmap_get_shallow}); no minimum is checked here. */
    public int getShallow(int hint, int shallowDepth) {
        if (shallowDepth < 1) {
            throw new IllegalArgumentException("shallow depth must be >= 1, got " + shallowDepth);
        }
        return get(hint, shallowDepth);
    }

    private int get(int slot, int shallowDepth) {
        int h = hintAt(slot);
        int depth = this.depth;
        if (depth == 0) {
            hints[h] = 0;
            return -1;
        }
        int hint = hints[h];
        if (hint >= depth || hint < 0) {
            hint = SbitmapMath.randomHint(slot, depth, shift);
        }
        int mapNr = SbitmapMath.mapNr(depth, shift);
        int index = hint >>> shift;
        // Round-robin starts at the hint's bit and does not wrap inside the first word (digest §1.3).
        int offset = roundRobin ? hint & ((1 << shift) - 1) : 0;
        int nr = -1;
        for (int i = 0; i < mapNr; i++) {
            int usable = SbitmapMath.shallowWordDepth(depth, shift, index, shallowDepth);
            int bit = getInWord(index, SbitmapMath.lowMask(usable) & ~SbitmapMath.lowMask(offset));
            if (bit >= 0) {
                nr = (index << shift) + bit;
                break;
            }
            offset = 0;
            index = index + 1 == mapNr ? 0 : index + 1;
        }
        hints[h] = SbitmapMath.hintAfterGet(hint, nr, depth, roundRobin);
        return nr;
    }

    /** Claims a bit of {@code mask} in word {@code index}, folding deferred clears when it runs dry. */
    private int getInWord(int index, long mask) {
        if (mask == 0) {
            return -1;
        }
        int at = at(index);
        for (int spins = 0; ; spins++) {
            long w = (long) SLOT.getOpaque(map, at + WORD);
            long free = ~w & mask;
            while (free != 0) {
                long bit = Long.lowestOneBit(free);
                // Acquire: pairs with the release in put()/putBatch()/foldWord(), so the previous
                // holder's writes to whatever this bit names happen-before the new holder's.
                long witness = (long) SLOT.compareAndExchangeAcquire(map, at + WORD, w, w | bit);
                if (witness == w) {
                    return Long.numberOfTrailingZeros(bit);
                }
                w = witness;
                free = ~w & mask;
            }
            if (!deferredClear(index, mask)) {
                return -1;
            }
            backOff(spins);
        }
    }

    private static void backOff(int spins) {
        if (spins > 64) {
            Thread.yield();
        } else if (spins > 2) {
            Thread.onSpinWait();
        }
    }

    /**
     * {@code sbitmap_deferred_clear}: returns true when word {@code index} may now
     * have a free bit in {@code mask} and the caller should search it again.
     * Folding is serialised by the word's swap_lock; a caller that finds
     * {@code cleared} empty re-checks {@code word} after any fold in progress, so
     * bits being returned by another thread are never missed (the 2024 "io hung
     * due to race on sbitmap_word::cleared" fix).
     */
    private boolean deferredClear(int index, long mask) {
        int at = at(index);
        // Volatile read: with the volatile RMW in put() and the ws_active accesses it is one
        // side of the no-lost-wake-up handshake (see ShardedSbitmapQueue#getBlocking).
        long cleared = (long) SLOT.getVolatile(map, at + CLEARED);
        if (cleared == 0) {
            if ((long) SLOT.getVolatile(map, at + SWAP_LOCK) != 0) {
                return true; // a fold is returning bits right now: look again
            }
            // Volatile: pairs with the unlock in foldWord(), so a completed fold's bits are seen.
            return (~(long) SLOT.getVolatile(map, at + WORD) & mask) != 0;
        }
        if (!SLOT.compareAndSet(map, at + SWAP_LOCK, 0L, 1L)) {
            return true;
        }
        foldLocked(at);
        return true;
    }

    /** Moves {@code cleared} into {@code word}; the caller holds the word's swap_lock. */
    private void foldLocked(int at) {
        // Acquire side of getAndSet pairs with the release side of put()'s getAndBitwiseOr.
        long freed = (long) SLOT.getAndSet(map, at + CLEARED, 0L);
        if (freed != 0) {
            // Release: pairs with the acquire CAS in getInWord()/getBatch().
            SLOT.getAndBitwiseAndRelease(map, at + WORD, ~freed);
        }
        // Volatile store: pairs with the volatile swap_lock read in deferredClear().
        SLOT.setVolatile(map, at + SWAP_LOCK, 0L);
    }

    /** Folds every word's deferred clears (resize, debug views). */
    void foldAll() {
        for (int i = 0; i < allocatedWords; i++) {
            int at = at(i);
            for (int spins = 0; !SLOT.compareAndSet(map, at + SWAP_LOCK, 0L, 1L); spins++) {
                backOff(spins);
            }
            foldLocked(at);
        }
    }

    /**
     * Frees {@code bit} by the deferred clear ({@code sbitmap_put}): sets it in
     * {@code cleared}, never touching the allocators' {@code word}, and in
     * non-round-robin mode points {@code hint}'s slot at it for cache-hot reuse.
     *
     * @throws IllegalStateException if the bit is not allocated (a double free)
     */
    public void put(int bit, int hint) {
        Objects.checkIndex(bit, capacity);
        int h = hintAt(hint);
        int at = at(bit >>> shift);
        long mask = 1L << (bit & ((1 << shift) - 1));
        // Only the holder or a fold of an earlier free can clear the bit in word, so a clear bit
        // here means the caller does not hold it.
        if (((long) SLOT.getOpaque(map, at + WORD) & mask) == 0) {
            throw new IllegalStateException("bit " + bit + " is not allocated");
        }
        // Volatile RMW: its release side publishes the holder's writes (pairs with the acquire in
        // foldLocked()); its full ordering keeps it before the caller's ws_active read (the
        // kernel's smp_mb__after_atomic in sbitmap_queue_clear).
        long before = (long) SLOT.getAndBitwiseOr(map, at + CLEARED, mask);
        if ((before & mask) != 0) {
            throw new IllegalStateException("bit " + bit + " freed twice");
        }
        if (!roundRobin && bit < depth) {
            hints[h] = bit;
        }
    }

    /**
     * Claims up to {@code nr} free bits of one word with one successful CAS
     * ({@code __sbitmap_queue_get_batch}); returns how many were written to
     * {@code out}. Returns 0 in round-robin mode.
     */
    public int getBatch(int nr, int hint, int[] out) {
        int h = hintAt(hint);
        if (nr < 0 || nr > out.length) {
            throw new IllegalArgumentException("nr " + nr + " outside 0.." + out.length);
        }
        int depth = this.depth;
        if (roundRobin || nr == 0 || depth == 0) {
            return 0;
        }
        int start = hints[h];
        if (start >= depth || start < 0) {
            start = SbitmapMath.randomHint(hint, depth, shift);
        }
        int mapNr = SbitmapMath.mapNr(depth, shift);
        int index = start >>> shift;
        for (int i = 0; i < mapNr; i++) {
            int n = getBatchInWord(index, SbitmapMath.lowMask(SbitmapMath.wordDepth(depth, shift, index)), nr, out);
            if (n > 0) {
                hints[h] = SbitmapMath.hintAfterGet(start, out[0], depth, false);
                return n;
            }
            index = index + 1 == mapNr ? 0 : index + 1;
        }
        hints[h] = 0;
        return 0;
    }

    private int getBatchInWord(int index, long mask, int nr, int[] out) {
        int at = at(index);
        for (int spins = 0; ; spins++) {
            long w = (long) SLOT.getOpaque(map, at + WORD);
            long free = ~w & mask;
            if (free == 0) {
                if (!deferredClear(index, mask)) {
                    return 0;
                }
                backOff(spins);
                continue;
            }
            long take = 0;
            for (int k = 0; k < nr && free != 0; k++) {
                long low = Long.lowestOneBit(free);
                take |= low;
                free &= ~low;
            }
            // Acquire: pairs with the releases in put()/putBatch()/foldLocked(), as in getInWord().
            if ((long) SLOT.compareAndExchangeAcquire(map, at + WORD, w, w | take) == w) {
                int n = 0;
                for (long t = take; t != 0; t &= t - 1) {
                    out[n++] = (index << shift) + Long.numberOfTrailingZeros(t);
                }
                return n;
            }
        }
    }

    /**
     * Frees the first {@code n} bits of {@code bits} straight out of {@code word},
     * one atomic AND-NOT per distinct word ({@code sbitmap_queue_clear_batch}).
     * All bits are validated before any is freed.
     *
     * @throws IllegalStateException if a bit is not allocated or already freed
     */
    public void putBatch(int[] bits, int n) {
        if (n < 0 || n > bits.length) {
            throw new IllegalArgumentException("n " + n + " outside 0.." + bits.length);
        }
        for (int i = 0; i < n; i++) {
            Objects.checkIndex(bits[i], capacity);
        }
        for (int pass = 0; pass < 2; pass++) { // pass 0 validates, pass 1 frees
            for (int i = 0; i < n; i++) {
                int index = bits[i] >>> shift;
                if (wordSeenBefore(bits, i, index)) {
                    continue;
                }
                long mask = 0;
                for (int j = i; j < n; j++) {
                    if (bits[j] >>> shift == index) {
                        mask |= 1L << (bits[j] & ((1 << shift) - 1));
                    }
                }
                int at = at(index);
                if (pass == 0) {
                    checkHeld(at, mask);
                } else {
                    // Volatile RMW: release publishes the holders' writes (pairs with the acquire CAS
                    // in getInWord()); full ordering before the caller's ws_active read.
                    SLOT.getAndBitwiseAnd(map, at + WORD, ~mask);
                }
            }
        }
    }

    private boolean wordSeenBefore(int[] bits, int i, int index) {
        if (i > 0 && bits[i - 1] >>> shift == index) {
            return true;
        }
        for (int k = 0; k < i - 1; k++) {
            if (bits[k] >>> shift == index) {
                return true;
            }
        }
        return false;
    }

    private void checkHeld(int at, long mask) {
        long w = (long) SLOT.getOpaque(map, at + WORD);
        long c = (long) SLOT.getOpaque(map, at + CLEARED);
        if ((w & mask) != mask || (c & mask) != 0) {
            throw new IllegalStateException("batch frees bits that are not allocated (mask 0x"
                    + Long.toHexString(mask & ~(w & ~c)) + " of word " + (at / STRIDE - 1) + ")");
        }
    }

    /** Sets {@code bit} directly in {@code word} ({@code sbitmap_set_bit}); returns whether it was already set. */
    public boolean setBit(int bit) {
        Objects.checkIndex(bit, capacity);
        long mask = 1L << (bit & ((1 << shift) - 1));
        return ((long) SLOT.getAndBitwiseOr(map, at(bit >>> shift) + WORD, mask) & mask) != 0;
    }

    /** Clears {@code bit} directly in {@code word} ({@code sbitmap_clear_bit}); returns whether it was set. */
    public boolean clearBit(int bit) {
        Objects.checkIndex(bit, capacity);
        long mask = 1L << (bit & ((1 << shift) - 1));
        return ((long) SLOT.getAndBitwiseAnd(map, at(bit >>> shift) + WORD, ~mask) & mask) != 0;
    }

    /** Whether {@code bit} is held: set in {@code word} and not pending in {@code cleared}. */
    public boolean testBit(int bit) {
        Objects.checkIndex(bit, capacity);
        int at = at(bit >>> shift);
        long mask = 1L << (bit & ((1 << shift) - 1));
        long w = (long) SLOT.getAcquire(map, at + WORD);
        long c = (long) SLOT.getAcquire(map, at + CLEARED);
        return (w & ~c & mask) != 0;
    }

    /**
     * Visits held bits below the depth, starting at {@code start} and wrapping once
     * round the map ({@code sbitmap_for_each_set}); stops when {@code fn} returns false.
     * A snapshot per word: bits changing during the walk may or may not be seen.
     */
    public void forEachSet(int start, IntPredicate fn) {
        int depth = this.depth;
        int mapNr = SbitmapMath.mapNr(depth, shift);
        if (mapNr == 0) {
            return;
        }
        int first = start >= depth || start < 0 ? 0 : start;
        int index = first >>> shift;
        long offsetMask = ~SbitmapMath.lowMask(first & ((1 << shift) - 1));
        for (int i = 0; i <= mapNr; i++) {
            long limit = i == 0 ? offsetMask : i == mapNr ? ~offsetMask : -1L;
            long held = heldBits(index, depth) & limit;
            for (; held != 0; held &= held - 1) {
                if (!fn.test((index << shift) + Long.numberOfTrailingZeros(held))) {
                    return;
                }
            }
            if (i < mapNr) {
                index = index + 1 == mapNr ? 0 : index + 1;
            }
        }
    }

    private long heldBits(int index, int depth) {
        int at = at(index);
        long w = (long) SLOT.getAcquire(map, at + WORD);
        long c = (long) SLOT.getAcquire(map, at + CLEARED);
        return w & ~c & SbitmapMath.lowMask(SbitmapMath.wordDepth(depth, shift, index));
    }

    /**
     * Bits held now, popcount(word) − popcount(cleared) over every allocated word
     * ({@code sbitmap_weight}); includes bits above a shrunk depth that are still
     * held. Exact when quiescent; under concurrency a fold in flight can make it
     * briefly high, never negative.
     */
    public int weight() {
        int busy = 0;
        for (int i = 0; i < allocatedWords; i++) {
            int at = at(i);
            // word before cleared: a fold moves bits cleared -> 0 and then word -> 0, so this order
            // can only over-count a fold in flight.
            long w = (long) SLOT.getAcquire(map, at + WORD);
            long c = (long) SLOT.getAcquire(map, at + CLEARED);
            busy += Long.bitCount(w) - Long.bitCount(c & w);
        }
        return busy;
    }

    /** Bits freed but not yet folded back (debugfs {@code cleared}). */
    public int clearedCount() {
        int n = 0;
        for (int i = 0; i < allocatedWords; i++) {
            n += Long.bitCount((long) SLOT.getAcquire(map, at(i) + CLEARED));
        }
        return n;
    }

    /**
     * Sets the usable depth within the capacity, folding deferred clears first
     * ({@code sbitmap_resize}). Bits above a shrunk depth stay held until freed.
     */
    public void resize(int newDepth) {
        if (newDepth < 0 || newDepth > capacity) {
            throw new IllegalArgumentException("depth " + newDepth + " outside 0.." + capacity);
        }
        foldAll();
        depth = newDepth;
    }
}
