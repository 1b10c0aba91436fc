package io.hostwide.cli.util;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The ring's single-threaded contract: capacity, full and empty answers, FIFO order across many laps. */
class MpscIntRingTest {

    @Test
    void capacityIsThePowerOfTwoAtOrAboveTheRequestAndHoldsExactlyThatMany() {
        for (int n = 1; n <= 130; n++) {
            MpscIntRing ring = new MpscIntRing(n);
            int cap = ring.capacity();
            assertThat(Integer.bitCount(cap)).as("capacity of %d is a power of two", n).isEqualTo(1);
            assertThat(cap).as("capacity of %d", n).isGreaterThanOrEqualTo(Math.max(n, 4)).isLessThan(Math.max(2 * n, 5));
            for (int i = 0; i < cap; i++) {
                assertThat(ring.offer(i)).as("offer %d of %d", i, cap).isTrue();
            }
            assertThat(ring.offer(cap)).as("offer past capacity %d", cap).isFalse();
            assertThat(ring.isEmpty()).isFalse();
        }
        assertThatThrownBy(() -> new MpscIntRing(0)).hasMessageContaining("out of range");
        assertThatThrownBy(() -> new MpscIntRing((1 << 30) + 1)).hasMessageContaining("out of range");
    }

    @Test
    void emptyAnswersMinusOneUntilAValueIsOfferedAndAfterItIsTaken() {
        MpscIntRing ring = new MpscIntRing(4);
        assertThat(ring.isEmpty()).isTrue();
        assertThat(ring.poll()).isEqualTo(-1);
        assertThat(ring.offer(0)).isTrue();
        assertThat(ring.isEmpty()).isFalse();
        assertThat(ring.poll()).isZero();
        assertThat(ring.isEmpty()).isTrue();
        assertThat(ring.poll()).isEqualTo(-1);
        assertThatThrownBy(() -> ring.offer(-1)).as("-1 would read as empty").hasMessageContaining("negative");
    }

    @Test
    void fullRefusesUntilOnePollFreesExactlyOneCell() {
        MpscIntRing ring = new MpscIntRing(8);
        for (int i = 0; i < 8; i++) {
            ring.offer(i);
        }
        assertThat(ring.offer(100)).isFalse();
        assertThat(ring.poll()).isZero();
        assertThat(ring.offer(8)).isTrue();
        assertThat(ring.offer(101)).isFalse();
        for (int i = 1; i <= 8; i++) {
            assertThat(ring.poll()).isEqualTo(i);
        }
        assertThat(ring.poll()).isEqualTo(-1);
    }

    /**
     * Random runs of offers and polls against an ArrayDeque bounded at the same capacity: every answer (accepted,
     * refused, value, empty) agrees, over thousands of laps, so each cell's sequence number wraps many times.
     */
    @Test
    void agreesWithABoundedDequeOverManyLaps() {
        SplittableRandom random = new SplittableRandom(11);
        for (int n : new int[] {1, 4, 5, 32}) {
            MpscIntRing ring = new MpscIntRing(n);
            int cap = ring.capacity();
            ArrayDeque<Integer> model = new ArrayDeque<>();
            int next = 0;
            int accepted = 0;
            boolean offerPhase = false;
            int burstLeft = 0;
            for (int step = 0; step < 200_000; step++) {
                // Bursts that mostly offer, then mostly poll, so the ring is often full and often empty.
                if (burstLeft-- == 0) {
                    offerPhase = !offerPhase;
                    burstLeft = 1 + random.nextInt(2 * cap + 2);
                }
                if (offerPhase == (random.nextInt(5) != 0)) {   // 4 in 5 steps follow the phase
                    boolean ok = ring.offer(next);
                    assertThat(ok).as("offer at %d held of %d", model.size(), cap).isEqualTo(model.size() < cap);
                    if (ok) {
                        model.add(next);
                        accepted++;
                    }
                    next = (next + 1) & Integer.MAX_VALUE;
                } else {
                    Integer expected = model.poll();
                    assertThat(ring.poll()).isEqualTo(expected == null ? -1 : expected);
                }
                assertThat(ring.isEmpty()).isEqualTo(model.isEmpty());
            }
            assertThat(accepted).as("values through a %d-cell ring", cap).isGreaterThan(1000 * cap);
        }
    }
}
