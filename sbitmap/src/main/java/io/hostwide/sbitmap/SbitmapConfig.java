package io.hostwide.sbitmap;

/**
 * How to build an {@link SbitmapQueue}.
 *
 * @param depth      usable bits at start
 * @param capacity   bits allocated once; {@link SbitmapQueue#resize} stays within it (≥ depth)
 * @param shift      log2 of bits per word, or -1 for the kernel's default rule
 * @param roundRobin strictly advancing hints ({@code BLK_MQ_F_TAG_RR})
 * @param nrHints    hint slots (one per submitting ctx), ≥ 1
 */
public record SbitmapConfig(int depth, int capacity, int shift, boolean roundRobin, int nrHints) {

    public SbitmapConfig {
        if (depth < 0 || capacity < depth) {
            throw new IllegalArgumentException("need 0 <= depth <= capacity, got depth=" + depth + " capacity=" + capacity);
        }
        if (shift < -1 || shift > 6) {
            throw new IllegalArgumentException("shift must be -1 (default) or 0..6, got " + shift);
        }
        if (nrHints < 1) {
            throw new IllegalArgumentException("nrHints must be >= 1, got " + nrHints);
        }
    }

    public static SbitmapConfig of(int depth, int nrHints) {
        return new SbitmapConfig(depth, depth, -1, false, nrHints);
    }

    public SbitmapConfig withCapacity(int newCapacity) {
        return new SbitmapConfig(depth, newCapacity, shift, roundRobin, nrHints);
    }

    public SbitmapConfig withShift(int newShift) {
        return new SbitmapConfig(depth, capacity, newShift, roundRobin, nrHints);
    }

    public SbitmapConfig withRoundRobin(boolean rr) {
        return new SbitmapConfig(depth, capacity, shift, rr, nrHints);
    }
}
