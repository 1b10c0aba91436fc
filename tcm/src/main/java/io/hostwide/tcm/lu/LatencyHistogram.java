package io.hostwide.tcm.lu;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

/**
 * Latencies in nanoseconds, counted in buckets of eight per power of two (so a reported percentile is at most
 * 12.5% above the true one), with their sum (Prometheus histograms export it). Recording is two {@link LongAdder}
 * increments: no lock, and threads completing commands of the same device do not contend on one cache line for
 * long (the adder stripes).
 *
 * <p>Memory: a bucket's adder is created the first time a latency falls into it (a CAS on the slot; the only
 * allocation, once per bucket), so a histogram costs its slot array plus the few dozen buckets real latencies
 * use, about 3 KiB, not the ~15 KiB of 488 eager adders; per-LUN and per-session histograms stay cheap at
 * thousands of sessions.
 */
public final class LatencyHistogram {
    private static final int SUB_BITS = 3;
    private static final int SUB = 1 << SUB_BITS;
    /** Values below SUB ns get exact buckets; above, 8 buckets per octave up to 2^63. */
    private static final int BUCKETS = (64 - SUB_BITS) * SUB + SUB;
    /** Slot access: getAcquire in {@link #record} pairs with the CAS (volatile) that publishes a new adder. */
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(LongAdder[].class);

    private final LongAdder[] counts = new LongAdder[BUCKETS];
    private final LongAdder sumNanos = new LongAdder();

    public LatencyHistogram() {
    }

    /** Records one latency; negative values (a clock step) count as 0. */
    public void record(long nanos) {
        long v = Math.max(0, nanos);
        int b = bucket(v);
        LongAdder a = (LongAdder) SLOT.getAcquire(counts, b);
        if (a == null) {
            a = create(b);
        }
        a.increment();
        sumNanos.add(v);
    }

    /** The first record into bucket {@code b}: whoever wins the CAS publishes the adder, the others use it. */
    private LongAdder create(int b) {
        LongAdder fresh = new LongAdder();
        LongAdder won = (LongAdder) SLOT.compareAndExchange(counts, b, null, fresh);
        return won == null ? fresh : won;
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
            LongAdder a = (LongAdder) SLOT.getAcquire(counts, i); // pairs with the CAS in create
            c[i] = a == null ? 0 : a.sum();
            total += c[i];
        }
        return new Snapshot(c, total, sumNanos.sum());
    }

    /** Bucket counts at one moment, with percentile queries. */
    public static final class Snapshot {
        private final long[] counts;
        private final long total;
        private final long sumNanos;

        Snapshot(long[] counts, long total, long sumNanos) {
            this.counts = counts;
            this.total = total;
            this.sumNanos = sumNanos;
        }

        public long count() {
            return total;
        }

        /** The sum of the recorded latencies in nanoseconds (read apart from the buckets: may be a record ahead). */
        public long sumNanos() {
            return sumNanos;
        }

        /**
         * How many recorded latencies are certainly at or below {@code nanos}: those in buckets whose upper edge is
         * at or below it. A latency in the bucket that straddles {@code nanos} is left out, so a cumulative
         * Prometheus bucket never over-counts; it under-counts by at most that one bucket (12.5% wide).
         */
        public long countAtOrBelow(long nanos) {
            long n = 0;
            for (int i = 0; i < counts.length && upperBound(i) <= nanos; i++) {
                n += counts[i];
            }
            return n;
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
