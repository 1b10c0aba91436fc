package io.hostwide.tcm;

import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.tcm.lu.DeviceStats;
import org.junit.jupiter.api.Test;

import static io.hostwide.tcm.Harness.BLOCK;
import static io.hostwide.tcm.Harness.BLOCKS;
import static org.assertj.core.api.Assertions.assertThat;

/** The core counts every completed command of a device once, by kind, with the bytes actually moved. */
class DeviceStatsTest {

    @Test
    void readsWritesOthersAndErrorsAreCountedOnce() {
        try (Harness h = new Harness()) {
            byte[] data = Harness.pattern(4 * BLOCK, 7);
            assertThat(h.out(Harness.write10(0, 4), data).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(0, 4), 4 * BLOCK).status()).isEqualTo(ScsiStatus.GOOD);
            // a short allocation: only what was sent counts
            assertThat(h.in(Harness.read10(0, 4), 2 * BLOCK).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.none(Harness.cdb(0x00, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD); // TUR
            // past the end: a read error, no bytes
            assertThat(h.in(Harness.read10(BLOCKS, 1), BLOCK).status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
            // a rejected write moves no data
            assertThat(h.out(Harness.write10(BLOCKS, 1), new byte[BLOCK]).status())
                    .isEqualTo(ScsiStatus.CHECK_CONDITION);

            DeviceStats.Snapshot s = h.device.stats().snapshot();
            assertThat(s.reads().ops()).isEqualTo(3);
            assertThat(s.reads().bytes()).isEqualTo(6 * BLOCK);
            assertThat(s.writes().ops()).isEqualTo(2);
            assertThat(s.writes().bytes()).isEqualTo(4 * BLOCK);
            assertThat(s.other().ops()).isGreaterThanOrEqualTo(1);
            assertThat(s.errors()).isEqualTo(2);
            assertThat(s.aborted()).isZero();
            assertThat(s.reads().latency().count()).isEqualTo(3);
            assertThat(s.reads().latency().percentile(100)).isPositive();
        }
    }

    /** The same command feeds its device, the LUN it came through and its I_T_L nexus, once each. */
    @Test
    void theLunAndTheNexusCountWhatTheDeviceCounts() {
        try (Harness h = new Harness()) {
            assertThat(h.out(Harness.write10(0, 2), Harness.pattern(2 * BLOCK, 1)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(BLOCKS, 1), BLOCK).status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
            DeviceStats.Snapshot dev = h.device.stats().snapshot();
            for (DeviceStats.Snapshot s : new DeviceStats.Snapshot[] {h.port.lun(0).stats().snapshot(),
                h.session.lookup(0).stats().snapshot()}) {
                assertThat(s.writes().ops()).isEqualTo(dev.writes().ops()).isEqualTo(1);
                assertThat(s.writes().bytes()).isEqualTo(2 * BLOCK);
                assertThat(s.reads().ops()).isEqualTo(1);
                assertThat(s.errors()).isEqualTo(dev.errors()).isEqualTo(1);
                assertThat(s.writes().latency().sumNanos()).isPositive();
                assertThat(s.taskSetFull()).isZero();
            }
        }
    }

    @Test
    void taskSetFullIsAnErrorCountedApart() {
        DeviceStats stats = new DeviceStats();
        stats.record(DeviceStats.Kind.WRITE, 0, 1_000, ScsiStatus.TASK_SET_FULL, false);
        stats.record(DeviceStats.Kind.READ, 0, 1_000, ScsiStatus.CHECK_CONDITION, false);
        stats.record(DeviceStats.Kind.READ, 512, 1_000, ScsiStatus.GOOD, false);
        DeviceStats.Snapshot s = stats.snapshot();
        assertThat(s.errors()).isEqualTo(2);
        assertThat(s.taskSetFull()).isEqualTo(1);
    }
}
