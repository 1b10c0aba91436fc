package io.hostwide.scsi.mid;

import io.hostwide.blk.BlkStatus;
import io.hostwide.scsi.spec.SenseKey;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Timeout → ABORT TASK → LUN reset → target reset → host reset, with every command completing exactly once and the
 * LUN usable afterwards; sense-based dispositions (digest §4.5, §4.8).
 */
class ErrorHandlingTest {

    private static MidHarness harness() {
        return new MidHarness(new ScsiHostTemplate().canQueue(8).cmdPerLun(4).timeoutMillis(1000));
    }

    @Test
    void successfulAbortRetriesTheCommand() {
        try (MidHarness h = new MidHarness(new ScsiHostTemplate().canQueue(8).cmdPerLun(4).timeoutMillis(1000)
                .abortDelayMillis(500))) {
            ScsiDevice d = h.addLun(0);
            h.lld.abortResult = EhResult.SUCCESS;
            h.read(h.submitter(d, 0), 0);
            ScsiCmnd lost = h.lld.take();   // the device does not answer in time
            h.advanceMillis(1200);          // timed out at 1 s, abort due at 1.5 s
            assertThat(lost.doneGood(0)).as("a completion racing the timeout loses: the command is the EH's").isFalse();
            h.advanceMillis(1300);
            assertThat(h.lld.log).contains("abort").doesNotContain("lun reset");
            ScsiCmnd retry = h.lld.take();
            assertThat(retry).isSameAs(lost);
            assertThat(retry.retries()).isEqualTo(1);
            h.lld.completeGood(retry);
            assertThat(h.eachExactlyOnce(1)).isTrue();
            assertThat(h.statuses.get(0L)).isEqualTo(BlkStatus.OK);
            assertThat(d.iotmoCnt()).isEqualTo(1);
        }
    }

    @Test
    void failedAbortEscalatesOnlyOnceEveryInFlightCommandFailedThenRecovers() {
        try (MidHarness h = harness()) {
            ScsiDevice d = h.addLun(0);
            h.read(h.submitter(d, 0), 0);
            h.read(h.submitter(d, 0), 1);
            ScsiCmnd lost = h.lld.take();
            ScsiCmnd slow = h.lld.take();
            h.advanceMillis(2500);
            // Both timed out; the error handler runs once both have failed (host_failed == host_busy).
            // One abort: it fails and puts the host in recovery, so the second timed-out command escalates directly.
            assertThat(h.lld.log).containsSubsequence("abort", "lun reset", "target reset", "host reset");
            assertThat(h.lld.log.stream().filter("abort"::equals).count()).isEqualTo(1);
            assertThat(h.host.state()).isEqualTo(HostState.RUNNING);
            assertThat(d.state()).isEqualTo(DeviceState.RUNNING);
            assertThat(lost.retries()).isEqualTo(1);
            assertThat(slow.retries()).isEqualTo(1);
            // HOST_RESET_SETTLE_TIME: the retries wait for the LUN to settle (10 s after the reset).
            assertThat(d.isSettling()).isTrue();
            assertThat(h.lld.issuedCount()).isZero();
            h.advanceMillis(10_000);
            assertThat(d.isSettling()).isFalse();
            for (ScsiCmnd c = h.lld.take(); c != null; c = h.lld.take()) {
                h.lld.completeGood(c);
            }
            h.kblockd.runDue();
            assertThat(h.eachExactlyOnce(2)).isTrue();
            assertThat(h.statuses.values()).containsOnly(BlkStatus.OK);
            assertThat(h.host.errorHandler().ehRuns()).isEqualTo(1);
            // The LUN recovered: new I/O goes through.
            h.read(h.submitter(d, 0), 2);
            h.lld.completeGood(h.lld.take());
            assertThat(h.eachExactlyOnce(3)).isTrue();
        }
    }

    @Test
    void everyResetFailingTakesTheLunOfflineAndFailsTheCommandOnce() {
        try (MidHarness h = harness()) {
            ScsiDevice d = h.addLun(0);
            h.lld.hostResetResult = EhResult.FAILED;
            h.read(h.submitter(d, 0), 0);
            h.lld.take();
            h.advanceMillis(2500);
            assertThat(h.lld.log).containsSubsequence("abort", "lun reset", "target reset", "host reset");
            assertThat(d.state()).isEqualTo(DeviceState.OFFLINE);
            assertThat(h.eachExactlyOnce(1)).isTrue();
            assertThat(h.statuses.get(0L)).isEqualTo(BlkStatus.TIMEOUT);
            h.read(h.submitter(d, 0), 1);
            h.kblockd.runDue();
            assertThat(h.statuses.get(1L)).as("offline LUN fails new I/O at once").isEqualTo(BlkStatus.IOERR);
            assertThat(h.lld.issuedCount()).isZero();
        }
    }

    @Test
    void lunResetSucceedingStopsTheEscalation() {
        try (MidHarness h = harness()) {
            ScsiDevice d = h.addLun(0);
            h.lld.lunResetResult = EhResult.SUCCESS;
            h.read(h.submitter(d, 0), 0);
            h.lld.take();
            h.advanceMillis(2500);
            List<String> log = h.lld.log;
            assertThat(log).contains("lun reset").doesNotContain("target reset", "host reset");
            h.lld.completeGood(h.lld.take());
            assertThat(h.eachExactlyOnce(1)).isTrue();
            assertThat(h.host.errorHandler().lunResets()).isEqualTo(1);
        }
    }

    @Test
    void unitAttentionIsRetriedMediumErrorAndIllegalRequestFail() {
        try (MidHarness h = harness()) {
            ScsiDevice d = h.addLun(0);
            h.read(h.submitter(d, 0), 0);
            h.lld.completeSense(h.lld.take(), SenseKey.UNIT_ATTENTION, 0x29, 0x00);
            h.advanceMillis(30);
            ScsiCmnd retry = h.lld.take();
            assertThat(retry).as("UNIT ATTENTION is retried").isNotNull();
            assertThat(retry.retries()).isEqualTo(1);
            h.lld.completeGood(retry);
            assertThat(h.statuses.get(0L)).isEqualTo(BlkStatus.OK);

            h.read(h.submitter(d, 0), 1);
            h.lld.completeSense(h.lld.take(), SenseKey.MEDIUM_ERROR, 0x11, 0x00);
            h.advanceMillis(30);
            assertThat(h.statuses.get(1L)).isEqualTo(BlkStatus.IOERR);
            assertThat(h.lld.issuedCount()).as("MEDIUM ERROR is not retried").isZero();

            h.read(h.submitter(d, 0), 2);
            h.lld.completeSense(h.lld.take(), SenseKey.ILLEGAL_REQUEST, 0x24, 0x00);
            h.advanceMillis(30);
            assertThat(h.statuses.get(2L)).isEqualTo(BlkStatus.IOERR);
            assertThat(h.eachExactlyOnce(3)).isTrue();
        }
    }

    @Test
    void notReadyBecomingReadyWaitsAndRetriesUntilReady() {
        try (MidHarness h = harness()) {
            ScsiDevice d = h.addLun(0);
            h.read(h.submitter(d, 0), 0);
            for (int i = 0; i < 3; i++) {
                h.lld.completeSense(h.lld.take(), SenseKey.NOT_READY, 0x04, 0x01);
                assertThat(d.deviceBlocked()).as("back-off through device_blocked").isEqualTo(3);
                h.advanceMillis(30);
            }
            h.lld.completeGood(h.lld.take());
            assertThat(h.eachExactlyOnce(1)).isTrue();
            assertThat(h.statuses.get(0L)).isEqualTo(BlkStatus.OK);
        }
    }

    /** NOT READY waits only for a temporary state; one that needs intervention fails at once, unretried. */
    @Test
    void notReadyWaitsForFormatInProgressButFailsAtOnceForMediumNotPresentOrInterventionNeeded() {
        try (MidHarness h = harness()) {
            ScsiDevice d = h.addLun(0);
            h.read(h.submitter(d, 0), 0);
            h.lld.completeSense(h.lld.take(), SenseKey.NOT_READY, 0x04, 0x04);   // FORMAT IN PROGRESS
            assertThat(d.deviceBlocked()).as("format in progress backs off").isEqualTo(3);
            h.advanceMillis(30);
            h.lld.completeGood(h.lld.take());
            assertThat(h.statuses.get(0L)).isEqualTo(BlkStatus.OK);

            int[][] fatal = {{0x3A, 0x00}, {0x04, 0x02}, {0x04, 0x03}, {0x04, 0x0B}};
            for (int i = 0; i < fatal.length; i++) {
                long ud = 1 + i;
                h.read(h.submitter(d, 0), ud);
                h.lld.completeSense(h.lld.take(), SenseKey.NOT_READY, fatal[i][0], fatal[i][1]);
                h.advanceMillis(30);
                assertThat(h.statuses.get(ud)).as("NOT READY %02Xh/%02Xh", fatal[i][0], fatal[i][1])
                        .isEqualTo(BlkStatus.IOERR);
                assertThat(h.lld.issuedCount()).as("not retried").isZero();
            }
            assertThat(h.eachExactlyOnce(1 + fatal.length)).isTrue();
            assertThat(h.host.snapshot().devices().get(0).retriesAddToMlqueue()).isEqualTo(1);
        }
    }

    /**
     * NOT READY that never ends: the waits are bounded by the command's runtime cap, (allowed + 1) × timeout
     * (the kernel's {@code wait_for}), after which the command fails once instead of waiting forever.
     */
    @Test
    void notReadyForeverFailsOnceAfterTheRuntimeCap() {
        try (MidHarness h = new MidHarness(new ScsiHostTemplate().canQueue(8).cmdPerLun(4).timeoutMillis(1000)
                .allowedRetries(2))) {
            ScsiDevice d = h.addLun(0);
            h.read(h.submitter(d, 0), 0);
            int answered = 0;
            for (ScsiCmnd c = h.lld.take(); c != null && answered < 100; c = h.lld.take()) {
                h.lld.completeSense(c, SenseKey.NOT_READY, 0x04, 0x01);
                answered++;
                h.advanceMillis(250);
            }
            assertThat(h.lld.issuedCount()).isZero();
            assertThat(h.eachExactlyOnce(1)).isTrue();
            assertThat(h.statuses.get(0L)).isEqualTo(BlkStatus.IOERR);
            // Issued at 0 and every 250 ms after: retried while within 3 s, failed by the first answer after it.
            assertThat(answered).isBetween(12, 14);
            ScsiDeviceSnapshot s = h.host.snapshot().devices().get(0);
            assertThat(s.retriesExhausted()).isEqualTo(1);
            assertThat(s.retriesAddToMlqueue()).isEqualTo(answered - 1);
        }
    }

    @Test
    void retriesAreBoundedByAllowed() {
        try (MidHarness h = new MidHarness(new ScsiHostTemplate().canQueue(8).cmdPerLun(4).allowedRetries(2))) {
            ScsiDevice d = h.addLun(0);
            h.read(h.submitter(d, 0), 0);
            for (int i = 0; i < 3; i++) {
                h.lld.take().done(HostByte.DID_ERROR, 0, null, 0, 0, 512);
                h.advanceMillis(30);
            }
            assertThat(h.lld.issuedCount()).isZero();
            assertThat(h.eachExactlyOnce(1)).isTrue();
            assertThat(h.statuses.get(0L)).isEqualTo(BlkStatus.IOERR);
        }
    }
}
