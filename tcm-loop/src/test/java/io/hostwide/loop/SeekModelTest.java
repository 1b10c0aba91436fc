package io.hostwide.loop;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SeekModelTest {

    private static final long SEEK = 1_000_000;          // 1 ms
    private static final long RATE = 100_000_000;        // 100 MB/s: 10 ns per byte

    @Test
    void aLoneRandomCommandCostsASeekPlusItsTransfer() {
        SeekModel m = new SeekModel(SEEK, RATE, 0);
        assertThat(m.access(100, 8, 4096, 0)).isEqualTo(SEEK + 40_960);
    }

    @Test
    void aCommandContinuingThePreviousOneSkipsTheSeek() {
        SeekModel m = new SeekModel(SEEK, RATE, 0);
        long first = m.access(0, 8, 4096, 0);
        // Issued once the head is free again: only the transfer.
        assertThat(m.access(8, 8, 4096, first)).isEqualTo(40_960);
    }

    @Test
    void commandsInFlightTogetherAreServedOneAfterAnother() {
        SeekModel m = new SeekModel(SEEK, RATE, 0);
        long a = m.access(0, 8, 4096, 0);
        long b = m.access(1000, 8, 4096, 0);
        long c = m.access(5000, 8, 4096, 0);
        assertThat(b).isEqualTo(2 * a);
        assertThat(c).isEqualTo(3 * a);
    }

    @Test
    void oneBigCommandBeatsTheSameBytesInSmallRandomOnes() {
        SeekModel merged = new SeekModel(SEEK, RATE, 0);
        long big = merged.access(0, 64, 32_768, 0);
        SeekModel split = new SeekModel(SEEK, RATE, 0);
        long last = 0;
        for (int i = 0; i < 8; i++) {
            last = split.access(i * 1000L, 8, 4096, 0);   // interleaved streams: every command seeks
        }
        assertThat(big).isLessThan(last);
    }

    @Test
    void everyCommandPaysTheFixedOverheadSoSmallSequentialCommandsLoseToOneBigOne() {
        SeekModel m = new SeekModel(SEEK, RATE, 100_000);
        long first = m.access(0, 8, 4096, 0);
        assertThat(first).isEqualTo(100_000 + SEEK + 40_960);
        long last = first;
        for (int i = 1; i < 8; i++) {
            last = m.access(i * 8L, 8, 4096, 0);   // sequential: no seek, still the overhead each time
        }
        assertThat(last - first).isEqualTo(7 * (100_000 + 40_960));
        SeekModel big = new SeekModel(SEEK, RATE, 100_000);
        assertThat(big.access(0, 64, 32_768, 0)).isLessThan(last);
    }

    @Test
    void badParametersAreRefused() {
        assertThatThrownBy(() -> new SeekModel(SEEK, RATE, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SeekModel(-1, RATE, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SeekModel(SEEK, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
