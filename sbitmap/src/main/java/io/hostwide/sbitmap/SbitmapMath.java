package io.hostwide.sbitmap;

/**
 * The sizing rules both implementations share (digest §1.2, §1.5, §1.6). Pure
 * functions, so the rules can be tested on their own.
 */
public final class SbitmapMath {

    /** log2(BITS_PER_LONG) on a 64-bit machine: at most 64 bits per word. */
    public static final int MAX_SHIFT = 6;

    private SbitmapMath() {
    }

    /**
     * The kernel's default shift ({@code sbitmap_calculate_shift}, digest §1.2):
     * start at 64 bits per word and, for depth ≥ 4, halve the word while four
     * words would still exceed the depth, so even a small map is spread over
     * about four cache lines.
     */
    public static int defaultShift(int depth) {
        int shift = MAX_SHIFT;
        if (depth >= 4) {
            while ((4 << shift) > depth) {
                shift--;
            }
        }
        return shift;
    }

    /** {@code shift} itself, or {@link #defaultShift} of {@code depth} when it is -1. */
    public static int effectiveShift(int shift, int depth) {
        return shift < 0 ? defaultShift(depth) : shift;
    }

    /** map_nr: ceil(depth / 2^shift). */
    public static int mapNr(int depth, int shift) {
        return (int) ((depth + (1L << shift) - 1) >>> shift);
    }

    /** Usable bits of word {@code index} at {@code depth}; the last word may be partial (digest §1.2). */
    public static int wordDepth(int depth, int shift, int index) {
        int bitsPerWord = 1 << shift;
        int below = index << shift;
        return Math.max(0, Math.min(bitsPerWord, depth - below));
    }

    /**
     * wake_batch = clamp(min(depth, min_shallow_depth) / 8, 1, 8) (digest §1.6).
     */
    public static int wakeBatch(int depth, int minShallowDepth) {
        int d = Math.min(depth, minShallowDepth);
        return clamp(d / SbitmapQueue.WAKE_BATCH, 1, SbitmapQueue.WAKE_BATCH);
    }

    /**
     * The batch for {@code users} sharers: clamp(ceil(depth / users) / 8, 1, 8), so
     * that each sharer's fair-share slice can still produce a wake-up (digest §1.6,
     * {@code sbitmap_queue_recalculate_wake_batch}).
     */
    public static int wakeBatchForUsers(int depth, int users) {
        if (users < 1) {
            throw new IllegalArgumentException("users must be >= 1, got " + users);
        }
        int share = (int) ((depth + (long) users - 1) / users);
        return clamp(share / SbitmapQueue.WAKE_BATCH, 1, SbitmapQueue.WAKE_BATCH);
    }

    /**
     * Whole-map shallow depth (digest §1.5, recent kernels): the budget
     * {@code shallowDepth} is spread over the words in proportion to their size.
     * Word {@code index} may use its first
     * floor(end·s/depth) − floor(start·s/depth) bits, where [start, end) is the
     * word's bit range; the shares of all words add up to exactly
     * min(shallowDepth, depth).
     */
    public static int shallowWordDepth(int depth, int shift, int index, int shallowDepth) {
        int wordDepth = wordDepth(depth, shift, index);
        if (shallowDepth >= depth) {
            return wordDepth;
        }
        long start = (long) index << shift;
        long end = start + wordDepth;
        return (int) (end * shallowDepth / depth - start * shallowDepth / depth);
    }

    /**
     * A random hint for slot {@code slot} in [0, depth) (digest §1.2). The kernel
     * draws uniformly over the map; here the word is chosen by slot, round-robin
     * over the words (slot mod map_nr), and the bit uniformly inside it, so that
     * neighbouring ctx (usually the busy ones) start on distinct words and cache
     * lines whenever there are enough words. Two ctx on one word would share its
     * line until one of them moved on.
     */
    static int randomHint(int slot, int depth, int shift) {
        if (depth <= 0) {
            return 0;
        }
        int word = slot % mapNr(depth, shift);
        int bits = wordDepth(depth, shift, word);
        return (word << shift) + java.util.concurrent.ThreadLocalRandom.current().nextInt(bits);
    }

    /** The hint after an allocation attempt ({@code update_alloc_hint_after_get}, digest §1.3). */
    static int hintAfterGet(int hint, int nr, int depth, boolean roundRobin) {
        if (nr < 0) {
            return 0;
        }
        if (nr == hint || roundRobin) {
            int next = nr + 1;
            return next >= depth ? 0 : next;
        }
        return hint;
    }

    /** The min_shallow_depth contract (digest §1.5): every shallow depth is ≥ the declared minimum and ≥ 1. */
    static void checkShallow(int shallowDepth, int minShallowDepth) {
        if (shallowDepth < 1 || shallowDepth < minShallowDepth) {
            throw new IllegalArgumentException("shallow depth " + shallowDepth + " below min_shallow_depth "
                    + minShallowDepth + " (declare it with setMinShallowDepth)");
        }
    }

    static int clamp(int v, int lo, int hi) {
        return Math.max(lo, Math.min(hi, v));
    }

    /** A mask of the low {@code n} bits, 0 ≤ n ≤ 64. */
    static long lowMask(int n) {
        return n >= 64 ? -1L : (1L << n) - 1;
    }
}
