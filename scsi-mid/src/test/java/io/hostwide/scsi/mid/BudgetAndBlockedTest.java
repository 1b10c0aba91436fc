package io.hostwide.scsi.mid;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.Submitter;
import io.hostwide.scsi.spec.ScsiStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/** Per-LUN budget, host/device blocked countdowns and the starved list, stepped on a manual kblockd (digest §4.3–4.5). */
class BudgetAndBlockedTest {

    private static ScsiHostTemplate template(RestartPolicy p) {
        return new ScsiHostTemplate().canQueue(16).cmdPerLun(2).restartPolicy(p);
    }

    @ParameterizedTest
    @EnumSource(RestartPolicy.class)
    void queueDepthBoundsDispatchAndEachCompletionAdmitsTheNext(RestartPolicy p) {
        try (MidHarness h = new MidHarness(template(p))) {
            ScsiDevice d = h.addLun(0);
            Submitter s = h.submitter(d, 0);
            for (int i = 0; i < 6; i++) {
                h.read(s, i);
            }
            h.kblockd.runDue();
            assertThat(h.lld.issuedCount()).isEqualTo(2);
            assertThat(d.busy()).isEqualTo(2);
            while (h.completed() < 6) {
                ScsiCmnd c = h.lld.take();
                assertThat(c).as("a command must be issued while requests wait (lost wake-up)").isNotNull();
                h.lld.completeGood(c);
                h.kblockd.runDue();
                assertThat(d.busy()).isLessThanOrEqualTo(2);
            }
            assertThat(h.eachExactlyOnce(6)).isTrue();
            assertThat(h.statuses.values()).containsOnly(BlkStatus.OK);
            assertThat(d.busy()).isZero();
            if (p == RestartPolicy.KERNEL) {
                assertThat(d.restartRuns()).as("completions re-ran the LUN through restarts").isPositive();
            }
        }
    }

    /**
     * {@code queue_depth} written at run time (sysfs; the lab experiments use it): clamped to 1..max_queue_depth,
     * it bounds the dispatches that follow, down and up, and becomes the ramp-up limit.
     */
    @ParameterizedTest
    @EnumSource(RestartPolicy.class)
    void queueDepthChangedAtRunTimeBoundsTheDispatchesThatFollow(RestartPolicy p) {
        try (MidHarness h = new MidHarness(template(p))) {
            ScsiDevice d = h.addLun(0);
            assertThat(d.maxQueueDepth()).isEqualTo(16);
            assertThat(d.changeQueueDepth(0)).as("clamped up to 1").isEqualTo(1);
            assertThat(d.changeQueueDepth(1000)).as("clamped down to max_queue_depth").isEqualTo(16);
            assertThat(d.changeQueueDepth(2)).isEqualTo(2);
            Submitter s = h.submitter(d, 0);
            for (int i = 0; i < 12; i++) {
                h.read(s, 4L * i);   // 512-byte reads 2 KiB apart: nothing merges
            }
            assertThat(h.lld.issuedCount()).isEqualTo(2);
            assertThat(d.changeQueueDepth(6)).isEqualTo(6);
            assertThat(d.rampUpLimit()).isEqualTo(6);
            h.lld.completeGood(h.lld.take());
            h.kblockd.runDue();
            assertThat(d.busy()).as("raised: the completion's re-run fills the new depth").isEqualTo(6);
            d.changeQueueDepth(1);
            while (d.busy() > 1) {
                h.lld.completeGood(h.lld.take());
                h.kblockd.runDue();
            }
            while (h.completed() < 12) {
                assertThat(d.busy()).as("lowered: one at a time once drained to the new depth").isEqualTo(1);
                ScsiCmnd c = h.lld.take();
                assertThat(c).as("a command must be issued while requests wait (lost wake-up)").isNotNull();
                h.lld.completeGood(c);
                h.kblockd.runDue();
            }
            assertThat(h.eachExactlyOnce(12)).isTrue();
            assertThat(d.busy()).isZero();
        }
    }

    @Test
    void hostBusyCountsDownOnIdleDispatchAttemptsThenDispatches() {
        try (MidHarness h = new MidHarness(template(RestartPolicy.KERNEL))) {
            ScsiDevice d = h.addLun(0);
            h.lld.refuse = c -> h.lld.queueCommandCalls == 1 ? LowLevelDriver.HOST_BUSY : LowLevelDriver.OK;
            h.read(h.submitter(d, 0), 0);
            // Set to max_host_blocked (7); the block layer's immediate re-run may already have counted one attempt.
            assertThat(h.host.hostBlocked()).isBetween(6, 7);
            assertThat(h.lld.issuedCount()).isZero();
            h.advanceMillis(100);
            assertThat(h.lld.issuedCount()).isEqualTo(1);
            assertThat(h.host.hostBlocked()).isZero();
            // The countdown is of dispatch attempts, not of driver calls: the driver saw the refusal and one issue.
            assertThat(h.lld.queueCommandCalls).isEqualTo(2);
            h.lld.completeGood(h.lld.take());
            assertThat(h.eachExactlyOnce(1)).isTrue();
        }
    }

    @Test
    void blockedBusyHostParksTheLunOnTheStarvedListUntilACompletion() {
        try (MidHarness h = new MidHarness(template(RestartPolicy.KERNEL))) {
            ScsiDevice a = h.addLun(0);
            ScsiDevice b = h.addLun(1);
            h.read(h.submitter(a, 0), 0);
            assertThat(h.lld.issuedCount()).isEqualTo(1);
            h.lld.refuse = c -> c.device() == b && h.host.hostBlocked() == 0 && h.lld.log.stream().noneMatch(x -> x.startsWith("refused"))
                    ? LowLevelDriver.HOST_BUSY : LowLevelDriver.OK;
            h.read(h.submitter(b, 0), 1);
            assertThat(h.host.hostBlocked()).isEqualTo(7);
            h.advanceMillis(10);
            assertThat(h.host.starvedListEmpty()).as("busy host + host_blocked → starved").isFalse();
            assertThat(h.lld.issuedCount()).isEqualTo(1);
            h.lld.completeGood(h.lld.take());   // any good completion zeroes host_blocked and runs the starved list
            h.kblockd.runDue();
            assertThat(h.host.hostBlocked()).isZero();
            assertThat(h.host.starvedListEmpty()).isTrue();
            ScsiCmnd fromB = h.lld.take();
            assertThat(fromB).isNotNull();
            assertThat(fromB.device()).isSameAs(b);
            h.lld.completeGood(fromB);
            assertThat(h.eachExactlyOnce(2)).isTrue();
        }
    }

    @Test
    void deviceBusyFromTheDriverBlocksTheLunForThreeIdleAttempts() {
        try (MidHarness h = new MidHarness(template(RestartPolicy.KERNEL))) {
            ScsiDevice d = h.addLun(0);
            h.lld.refuse = c -> h.lld.queueCommandCalls == 1 ? LowLevelDriver.DEVICE_BUSY : LowLevelDriver.OK;
            h.read(h.submitter(d, 0), 0);
            assertThat(d.deviceBlocked()).isBetween(2, 3);
            assertThat(h.lld.issuedCount()).isZero();
            h.advanceMillis(50);
            assertThat(d.deviceBlocked()).isZero();
            assertThat(h.lld.issuedCount()).isEqualTo(1);
            h.lld.completeGood(h.lld.take());
            assertThat(h.eachExactlyOnce(1)).isTrue();
        }
    }

    @Test
    void busyStatusRequeuesWithDeviceBlockedAndRetriesWithoutCountingARetry() {
        try (MidHarness h = new MidHarness(template(RestartPolicy.KERNEL))) {
            ScsiDevice d = h.addLun(0);
            h.read(h.submitter(d, 0), 0);
            ScsiCmnd c = h.lld.take();
            h.lld.completeStatus(c, ScsiStatus.BUSY);
            assertThat(d.deviceBlocked()).isEqualTo(3);
            assertThat(h.completed()).isZero();
            h.advanceMillis(50);
            ScsiCmnd again = h.lld.take();
            assertThat(again).isSameAs(c);
            assertThat(again.retries()).isZero();
            h.lld.completeGood(again);
            assertThat(h.eachExactlyOnce(1)).isTrue();
            assertThat(h.statuses.get(0L)).isEqualTo(BlkStatus.OK);
        }
    }

    @Test
    void bypassForNonRotationalSkipsTheBudgetMap() {
        try (MidHarness h = new MidHarness(template(RestartPolicy.KERNEL).bypassBudgetNonRotational(true))) {
            ScsiDevice d = h.addLun(0);
            d.rotational(false);
            assertThat(d.budgetBypassed()).isTrue();
            Submitter s = h.submitter(d, 0);
            for (int i = 0; i < 6; i++) {
                h.read(s, i);
            }
            assertThat(h.lld.issuedCount()).as("queue_depth 2 no longer limits a non-rotational LUN").isEqualTo(6);
            for (ScsiCmnd c = h.lld.take(); c != null; c = h.lld.take()) {
                h.lld.completeGood(c);
            }
            assertThat(h.eachExactlyOnce(6)).isTrue();
        }
    }

    @Test
    void targetCanQueueParksTheOtherLunOnTheStarvedListUntilTheTargetHasRoom() {
        try (MidHarness h = new MidHarness(template(RestartPolicy.KERNEL))) {
            ScsiDevice a = h.addLun(0);
            ScsiDevice b = h.addLun(1);
            a.target().canQueue(1);
            h.read(h.submitter(a, 0), 0);
            h.read(h.submitter(b, 0), 1);
            assertThat(h.lld.issuedCount()).as("target can_queue 1").isEqualTo(1);
            assertThat(a.target().targetBusy()).isEqualTo(1);
            assertThat(h.host.starvedListEmpty()).isFalse();
            h.lld.completeGood(h.lld.take());
            h.kblockd.runDue();
            ScsiCmnd next = h.lld.take();
            assertThat(next).isNotNull();
            assertThat(next.device()).isSameAs(b);
            h.lld.completeGood(next);
            h.kblockd.runDue();
            assertThat(h.eachExactlyOnce(2)).isTrue();
            assertThat(a.target().targetBusy()).isZero();
        }
    }

    /**
     * The case {@code restarts} exists for (digest §4.6): the budget is LUN-wide but RESTART is per hctx, so a
     * request refused on hctx 1 must be re-run by a completion that came from hctx 0.
     */
    @ParameterizedTest
    @EnumSource(RestartPolicy.class)
    void aCompletionOnOneHctxRerunsARequestRefusedOnAnother(RestartPolicy p) {
        ScsiHostTemplate t = new ScsiHostTemplate().canQueue(8).cmdPerLun(1).nrHwQueues(2).nrCtx(2).restartPolicy(p);
        try (MidHarness h = new MidHarness(t)) {
            ScsiDevice d = h.addLun(0);
            h.read(h.submitter(d, 0), 0);
            h.read(h.submitter(d, 1), 1);
            ScsiCmnd first = h.lld.take();
            assertThat(first.hwQueue()).isZero();
            assertThat(h.lld.issuedCount()).isZero();
            h.kblockd.advance(0);
            h.lld.completeGood(first);
            h.kblockd.runDue();   // no 3 ms delayed run needed: the completion re-runs hctx 1 now
            ScsiCmnd second = h.lld.take();
            assertThat(second).as("request parked on hctx 1 re-run by hctx 0's completion").isNotNull();
            assertThat(second.hwQueue()).isEqualTo(1);
            assertThat(d.restartRuns()).isEqualTo(p == RestartPolicy.KERNEL ? 1 : 0);
            h.lld.completeGood(second);
            assertThat(h.eachExactlyOnce(2)).isTrue();
        }
    }
}
