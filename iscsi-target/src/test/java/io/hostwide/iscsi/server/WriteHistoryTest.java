package io.hostwide.iscsi.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The soak test's oracle must catch what it exists to catch: lost, stale, torn and misplaced blocks. */
class WriteHistoryTest {
    private final WriteHistory h = new WriteHistory(16);

    private byte[] block(long lba, long gen) {
        byte[] b = new byte[WriteHistory.BLOCK];
        BlockStamp.stamp(b, 0, lba, 3, gen);
        return b;
    }

    private long floor(long lba) {
        long[] f = new long[1];
        h.floors(lba, 1, f);
        h.tick();
        return f[0];
    }

    @Test
    void aReadAfterAnAcknowledgedOverwriteMustNotSeeTheOldData() {
        long g1 = h.newWrite();
        h.acknowledged(g1, 5, 1);
        long g2 = h.newWrite();
        h.acknowledged(g2, 5, 1);
        long f = floor(5);
        assertThat(h.check(block(5, g2), 0, 5, f)).isNull();
        assertThat(h.check(block(5, g1), 0, 5, f)).contains("later write was acknowledged");
        assertThat(h.check(new byte[WriteHistory.BLOCK], 0, 5, f)).contains("never written");
    }

    @Test
    void concurrentWritesMayLandInEitherOrder() {
        long g1 = h.newWrite();
        long g2 = h.newWrite(); // sent before g1 was acknowledged: the two race
        h.acknowledged(g2, 5, 1);
        h.acknowledged(g1, 5, 1);
        long f = floor(5);
        assertThat(h.check(block(5, g1), 0, 5, f)).isNull();
        assertThat(h.check(block(5, g2), 0, 5, f)).isNull();
    }

    @Test
    void unacknowledgedWritesAndNeverWrittenBlocksAreLegal() {
        long g1 = h.newWrite(); // its connection dropped: fate unknown
        long f = floor(7);
        assertThat(h.check(new byte[WriteHistory.BLOCK], 0, 7, f)).isNull();
        assertThat(h.check(block(7, g1), 0, 7, f)).isNull();
    }

    @Test
    void tornMisplacedAndInventedBlocksAreCaught() {
        long g1 = h.newWrite();
        h.acknowledged(g1, 5, 1);
        long f = floor(5);
        byte[] torn = block(5, g1);
        torn[300] ^= 1;
        assertThat(h.check(torn, 0, 5, f)).contains("corrupt");
        assertThat(h.check(block(6, g1), 0, 5, f)).contains("corrupt");
        assertThat(h.check(block(5, g1 + 10), 0, 5, f)).contains("never written");
    }
}
