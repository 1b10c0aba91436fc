package io.hostwide.tcm.lu;

import java.util.concurrent.atomic.LongAdder;

/**
 * Latencies in nanoseconds, counted in buckets of eight per power of two (so a reported percentile is at most
 * 12.5% above the true one). Recording is one {@link LongAdder} increment: no lock, no allocation, and threads
 * completing commands of the same device do not contend on one cache line for long (the adder stripes).
 */
public final class LatencyHistogram {
    private static final int SUB_BITS = 3;
    private static final int SUB = 1 << SUB_BITS;
    /** Values below SUB ns get exact buckets; above, 8 buckets per octave up to 2^63. */
    private static final int BUCKETS = (64 - SUB_BITS) * SUB + SUB;

    private final LongAdder[] counts = new LongAdder[BUCKETS];

    public LatencyHistogram() {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] = new LongAdder();
        }
    }

    /** Records one latency; negative values (a clock step) count as 0. */
    public void record(long nanos) {
        counts[bucket(Math.max(0, nanos))].increment();
    }

    static int bucket(long v) {
        if (v < SUB) {
            return (int) v;
        }
        int exp = 63 - Long.numberOfLeadingZeros(v); // >= SUB_BITS
        int sub = (int) (v >>> (exp - SUB_BITS)) & (SUB - 1);
        return (exp - SUB_BITS + 1) * SUB + sub;
    }

    /** The largest value that falls into bucket {@code b}. */
    static long upperBound(int b) {
        if (b < SUB) {
            return b;
        }
        int exp = b / SUB + SUB_BITS - 1;
        long sub = b % SUB;
        long low = (1L << exp) | (sub << (exp - SUB_BITS));
        long width = 1L << (exp - SUB_BITS);
        return exp == 63 && sub == SUB - 1 ? Long.MAX_VALUE : low + width - 1;
    }

    /** A point-in-time copy; concurrent records may or may not be in it. */
    public Snapshot snapshot() {
        long[] c = new long[BUCKETS];
        long total = 0;
        for (int i = 0; i < BUCKETS; i++) {
            c[i] = counts[i].sum();
            total += c[i];
        }
        return new Snapshot(c, total);
    }

    /** Bucket counts at one moment, with percentile queries. */
    public static final class Snapshot {
        private final long[] counts;
        private final long total;

        Snapshot(long[] counts, long total) {
            this.counts = counts;
            this.total = total;
        }

        public long count() {
            return total;
        }

        /**
         * The value at or below which {@code p} percent of the recorded latencies fall (the upper edge of the
         * bucket holding that rank); 0 when nothing was recorded.
         */
        public long percentile(double p) {
            if (total == 0) {
                return 0;
            }
            long rank = Math.max(1, (long) Math.ceil(total * Math.min(100.0, Math.max(0.0, p)) / 100.0));
            long seen = 0;
            for (int i = 0; i < counts.length; i++) {
                seen += counts[i];
                if (seen >= rank) {
                    return upperBound(i);
                }
            }
            return upperBound(counts.length - 1);
        }

        /** The upper edge of the highest non-empty bucket; 0 when empty. */
        public long max() {
            for (int i = counts.length - 1; i >= 0; i--) {
                if (counts[i] != 0) {
                    return upperBound(i);
                }
            }
            return 0;
        }
    }
}
