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
}
