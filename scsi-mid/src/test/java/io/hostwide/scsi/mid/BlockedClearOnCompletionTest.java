package io.hostwide.scsi.mid;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The completion side of the blocked countdowns ({@code scsi_finish_command}, digest §4.5): a countdown holds while
 * the LUN/target has commands out, any good completion zeroes it and re-runs the queue, and a completion with
 * nothing blocked leaves the counters alone.
 */
class BlockedClearOnCompletionTest {
    private static ScsiHostTemplate template() {
        return new ScsiHostTemplate().canQueue(16).cmdPerLun(2).restartPolicy(RestartPolicy.KERNEL);
    }

    @Test
    void clearBlockedZeroesOnlyASetCountdownAndSaysWhetherItWasSet() {
        AtomicInteger idle = new AtomicInteger();
        assertThat(ScsiHost.clearBlocked(idle)).isFalse();
        assertThat(idle.get()).isZero();
        AtomicInteger blocked = new AtomicInteger(3);
        assertThat(ScsiHost.clearBlocked(blocked)).isTrue();
        assertThat(blocked.get()).isZero();
    }

    @Test
    void deviceBlockedHoldsWhileTheLunHasACommandOutUntilItsCompletionClearsItAndReruns() {
        try (MidHarness h = new MidHarness(template())) {
            ScsiDevice d = h.addLun(0);
            h.read(h.submitter(d, 0), 0);
            assertThat(h.lld.issuedCount()).isEqualTo(1);
            h.lld.refuse = c -> h.lld.queueCommandCalls == 2 ? LowLevelDriver.DEVICE_BUSY : LowLevelDriver.OK;
            h.read(h.submitter(d, 0), 1);
            h.advanceMillis(50);
            assertThat(d.deviceBlocked()).as("no countdown while the budget is held by the first command").isEqualTo(3);
            assertThat(h.lld.issuedCount()).isEqualTo(1);
            h.lld.completeGood(h.lld.take());
            assertThat(d.deviceBlocked()).as("the completion zeroes device_blocked").isZero();
            h.kblockd.runDue();
            ScsiCmnd second = h.lld.take();
            assertThat(second).as("the completion that unblocked the LUN re-ran its queue").isNotNull();
            h.lld.completeGood(second);
            assertThat(h.eachExactlyOnce(2)).isTrue();
        }
    }

    @Test
    void targetBlockedHoldsWhileTheTargetIsBusyUntilACompletionClearsIt() {
        try (MidHarness h = new MidHarness(template())) {
            ScsiDevice a = h.addLun(0);
            ScsiDevice b = h.addLun(1);
            a.target().canQueue(4);   // target_blocked is only consulted for targets with a can_queue
            h.read(h.submitter(a, 0), 0);
            h.lld.refuse = c -> c.device() == b && h.lld.queueCommandCalls == 2
                    ? LowLevelDriver.TARGET_BUSY : LowLevelDriver.OK;
            h.read(h.submitter(b, 0), 1);
            h.advanceMillis(50);
            assertThat(a.target().targetBlocked()).as("no countdown while the target has a command out").isEqualTo(3);
            assertThat(h.lld.issuedCount()).isEqualTo(1);
            h.lld.completeGood(h.lld.take());
            assertThat(a.target().targetBlocked()).as("the completion zeroes target_blocked").isZero();
            h.advanceMillis(50);
            ScsiCmnd fromB = h.lld.take();
            assertThat(fromB).isNotNull();
            assertThat(fromB.device()).isSameAs(b);
            h.lld.completeGood(fromB);
            assertThat(h.eachExactlyOnce(2)).isTrue();
            assertThat(a.target().targetBusy()).isZero();
        }
    }

    @Test
    void aCompletionWithNothingBlockedLeavesEveryCountdownAtZero() {
        try (MidHarness h = new MidHarness(template())) {
            ScsiDevice d = h.addLun(0);
            for (int i = 0; i < 4; i++) {
                h.read(h.submitter(d, 0), i);
                h.lld.completeGood(h.lld.take());
                h.kblockd.runDue();
            }
            assertThat(h.host.hostBlocked()).isZero();
            assertThat(d.deviceBlocked()).isZero();
            assertThat(d.target().targetBlocked()).isZero();
            assertThat(h.eachExactlyOnce(4)).isTrue();
        }
    }
}
