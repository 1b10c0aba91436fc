package io.hostwide.tcm.backstore.rbd;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static io.hostwide.tcm.backstore.rbd.FencedDrain.Step.ABANDON;
import static io.hostwide.tcm.backstore.rbd.FencedDrain.Step.REOPEN;
import static io.hostwide.tcm.backstore.rbd.FencedDrain.Step.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bounded drain of a fenced RBD image (issue 16): the reopen waits for the fenced client's operations at most
 * 2 × op_timeout + 30 s, then leaves them behind with the old client; driven by a fake clock, no sleeping.
 */
class FencedDrainTest {
    private static final long S = TimeUnit.SECONDS.toNanos(1);

    @Test
    void theBoundIsTwiceTheOpTimeoutPlusThirtySeconds() {
        assertThat(FencedDrain.limitNanos(30)).isEqualTo(90 * S); // conformance/rbd.json's op_timeout
        assertThat(FencedDrain.limitNanos(1)).isEqualTo(32 * S);
        assertThat(FencedDrain.limitNanos(0)).as("no op timeout: a fixed 120 s").isEqualTo(120 * S);
    }

    @Test
    void operationsInFlightAreWaitedForUpToTheBoundThenAbandoned() {
        long limit = FencedDrain.limitNanos(30);
        long fencedAt = 1_000 * S;
        for (long t = 0; t <= 90; t += 15) { // every poller wake-up within the bound
            assertThat(FencedDrain.next(fencedAt + t * S, fencedAt, 3, limit)).as("at +%d s", t).isEqualTo(WAIT);
        }
        assertThat(FencedDrain.next(fencedAt + limit, fencedAt, 3, limit)).as("at the bound").isEqualTo(WAIT);
        assertThat(FencedDrain.next(fencedAt + limit + 1, fencedAt, 3, limit)).as("past it").isEqualTo(ABANDON);
        assertThat(FencedDrain.next(fencedAt + 10 * limit, fencedAt, 1, limit)).isEqualTo(ABANDON);
    }

    @Test
    void nothingInFlightReopensAtOnce() {
        long limit = FencedDrain.limitNanos(30);
        assertThat(FencedDrain.next(5 * S, 5 * S, 0, limit)).isEqualTo(REOPEN);
        assertThat(FencedDrain.next(500 * S, 5 * S, 0, limit)).as("after abandoning, the count is 0")
                .isEqualTo(REOPEN);
    }

    /** System.nanoTime() may be any long and wraps: only differences count. */
    @Test
    void theBoundHoldsAcrossTheClocksWrapAround() {
        long limit = FencedDrain.limitNanos(1);
        long fencedAt = Long.MAX_VALUE - 10 * S;
        assertThat(FencedDrain.next(fencedAt + 20 * S, fencedAt, 2, limit)).isEqualTo(WAIT); // wrapped negative
        assertThat(FencedDrain.next(fencedAt + 40 * S, fencedAt, 2, limit)).isEqualTo(ABANDON);
        long negative = Long.MIN_VALUE + 5 * S;
        assertThat(FencedDrain.next(negative + 31 * S, negative, 2, limit)).isEqualTo(WAIT);
    }

    /** A short configured bound (op_timeout 1 s: 32 s) abandons a stuck operation long before the default's 90 s. */
    @Test
    void aShortOpTimeoutShortensTheDrain() {
        long fencedAt = 0;
        assertThat(FencedDrain.next(33 * S, fencedAt, 1, FencedDrain.limitNanos(1))).isEqualTo(ABANDON);
        assertThat(FencedDrain.next(33 * S, fencedAt, 1, FencedDrain.limitNanos(30))).isEqualTo(WAIT);
    }
}
