package io.hostwide.tcm.lu;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LatencyHistogramTest {

    @Property
    void everyValueFallsInABucketWhoseUpperEdgeIsWithinAnEighth(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long v) {
        int b = LatencyHistogram.bucket(v);
        long hi = LatencyHistogram.upperBound(b);
        assertThat(hi).isGreaterThanOrEqualTo(v);
        assertThat((double) hi).isLessThanOrEqualTo(v * 1.125 + 1);
        if (b > 0) {
            assertThat(LatencyHistogram.upperBound(b - 1)).isLessThan(v);
        }
    }

    @Test
    void percentilesOfAKnownDistribution() {
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 1; i <= 1000; i++) {
            h.record(i * 1_000L); // 1 µs .. 1 ms
        }
        LatencyHistogram.Snapshot s = h.snapshot();
        assertThat(s.count()).isEqualTo(1000);
        assertThat(s.percentile(50)).isBetween(500_000L, 562_500L);
        assertThat(s.percentile(99)).isBetween(990_000L, 1_113_750L);
        assertThat(s.max()).isBetween(1_000_000L, 1_125_000L);
        assertThat(s.percentile(0)).isBetween(1_000L, 1_125L);
    }

    @Test
    void emptyAndNegative() {
        LatencyHistogram h = new LatencyHistogram();
        assertThat(h.snapshot().percentile(99)).isZero();
        assertThat(h.snapshot().max()).isZero();
        h.record(-5);
        assertThat(h.snapshot().percentile(50)).isZero();
        assertThat(h.snapshot().count()).isEqualTo(1);
    }

    /** Prometheus needs the sum and cumulative counts; a bucket straddling a bound is never counted below it. */
    @Test
    void sumAndCumulativeCountsNeverOverCount() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(100);
        h.record(1_000);
        h.record(1_000_000);
        LatencyHistogram.Snapshot s = h.snapshot();
        assertThat(s.sumNanos()).isEqualTo(1_001_100);
        assertThat(s.countAtOrBelow(99)).isZero();
        assertThat(s.countAtOrBelow(1_000)).as("1000 ns shares a bucket reaching above 1000").isEqualTo(1);
        assertThat(s.countAtOrBelow(1_125)).isEqualTo(2);
        assertThat(s.countAtOrBelow(999_999)).isEqualTo(2);
        assertThat(s.countAtOrBelow(Long.MAX_VALUE)).isEqualTo(3);
    }

    @Property
    void cumulativeCountsAreWithinOneBucketOfTheTruth(@ForAll @LongRange(min = 0, max = 1L << 40) long v,
                                                      @ForAll @LongRange(min = 0, max = 1L << 40) long bound) {
        LatencyHistogram h = new LatencyHistogram();
        h.record(v);
        long counted = h.snapshot().countAtOrBelow(bound);
        if (v > bound) {
            assertThat(counted).isZero();
        } else if (bound >= LatencyHistogram.upperBound(LatencyHistogram.bucket(v))) {
            assertThat(counted).isEqualTo(1);
        }
    }

    /** Buckets are created on first use by racing threads: no increment is lost to the losing CAS. */
    @Test
    void concurrentFirstRecordsIntoOneBucketAreAllCounted() throws Exception {
        LatencyHistogram h = new LatencyHistogram();
        int threads = 4;
        int each = 10_000;
        java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            ts[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < each; i++) {
                    h.record(5_000 + (i & 1023));
                }
            });
            ts[t].start();
        }
        start.countDown();
        for (Thread t : ts) {
            t.join();
        }
        assertThat(h.snapshot().count()).isEqualTo((long) threads * each);
    }
}
