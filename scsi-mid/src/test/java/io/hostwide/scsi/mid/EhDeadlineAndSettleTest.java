package io.hostwide.scsi.mid;

import io.hostwide.blk.BlkStatus;
import io.hostwide.scsi.spec.SenseKey;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * eh_deadline (straight to host reset once recovery has run too long), the settle time after a host reset, and
 * the per-disposition retry counters shown by stat; all on virtual time.
 */
class EhDeadlineAndSettleTest {

    private static ScsiHostTemplate template() {
        return new ScsiHostTemplate().canQueue(8).cmdPerLun(4).timeoutMillis(1000);
    }

    private static void completeAll(MidHarness h) {
        for (ScsiCmnd c = h.lld.take(); c != null; c = h.lld.take()) {
            h.lld.completeGood(c);
        }
        h.kblockd.runDue();
    }

    @Test
    void aZeroDeadlineSkipsTheAbortAndTheFinerResets() {
        try (MidHarness h = new MidHarness(template().ehDeadlineMillis(0).skipSettleDelay(true))) {
            ScsiDevice d = h.addLun(0);
            h.read(h.submitter(d, 0), 0);
            h.lld.take();
            h.advanceMillis(1100);
            assertThat(h.lld.log).contains("host reset").doesNotContain("abort", "lun reset", "target reset");
            assertThat(h.host.errorHandler().deadlineEscalations()).isEqualTo(1);
            assertThat(h.host.errorHandler().aborts()).isZero();
            completeAll(h);
            assertThat(h.eachExactlyOnce(1)).isTrue();
            assertThat(h.statuses.get(0L)).isEqualTo(BlkStatus.OK);
        }
    }

    @Test
    void recoveryThatOutlivesTheDeadlineJumpsToTheHostReset() {
        for (long deadline : new long[] {500, -1}) {
            try (MidHarness h = new MidHarness(template().ehDeadlineMillis(deadline).skipSettleDelay(true))) {
                ScsiDevice d = h.addLun(0);
                h.read(h.submitter(d, 0), 0);        // times out at 1000 ms: recovery starts, its abort fails
                h.advanceMillis(900);
                h.read(h.submitter(d, 0), 1);        // still in flight until it times out at 1900 ms
                h.lld.take();
                h.lld.take();
                h.advanceMillis(1600);               // the handler runs at 1900 ms, 900 ms into recovery
                if (deadline >= 0) {
                    assertThat(h.lld.log).as("past eh_deadline").containsSubsequence("abort", "host reset")
                            .doesNotContain("lun reset", "target reset");
                } else {
                    assertThat(h.lld.log).as("no eh_deadline: the whole ladder")
                            .containsSubsequence("abort", "lun reset", "target reset", "host reset");
                }
                completeAll(h);
                assertThat(h.eachExactlyOnce(2)).isTrue();
                assertThat(h.statuses.values()).containsOnly(BlkStatus.OK);
                assertThat(h.host.state()).isEqualTo(HostState.RUNNING);
            }
        }
    }

    @Test
    void afterAHostResetEachLunSettlesBeforeNewCommands() {
        try (MidHarness h = new MidHarness(template().resetSettleMillis(5000))) {
            ScsiDevice d = h.addLun(0);
            ScsiDevice other = h.addLun(1);
            h.read(h.submitter(d, 0), 0);
            h.lld.take();
            h.advanceMillis(1100);                   // host reset at ~1010 ms
            assertThat(h.lld.log).contains("host reset");
            assertThat(d.isSettling()).isTrue();
            assertThat(other.isSettling()).as("every LUN of the host").isTrue();
            assertThat(h.host.snapshot().devices()).allSatisfy(s -> assertThat(s.settling()).isTrue());
            assertThat(h.host.snapshot().resetSettleMillis()).isEqualTo(5000);
            h.read(h.submitter(other, 0), 1);
            h.advanceMillis(3000);
            assertThat(h.lld.issuedCount()).as("nothing is issued while settling").isZero();
            h.advanceMillis(3000);                   // settle ends 5 s after the reset
            assertThat(h.lld.issuedCount()).isEqualTo(2);
            completeAll(h);
            assertThat(h.eachExactlyOnce(2)).isTrue();
        }
    }

    @Test
    void retriesAreCountedPerDisposition() {
        try (MidHarness h = new MidHarness(template().allowedRetries(2).abortDelayMillis(10))) {
            ScsiDevice d = h.addLun(0);
            h.read(h.submitter(d, 0), 0);
            for (int i = 0; i < 3; i++) {            // DID_ERROR: NEEDS_RETRY twice, then out of retries
                h.lld.take().done(HostByte.DID_ERROR, 0, null, 0, 0, 512);
                h.advanceMillis(30);
            }
            h.read(h.submitter(d, 0), 1);
            for (int i = 0; i < 3; i++) {            // becoming ready: ADD_TO_MLQUEUE three times
                h.lld.completeSense(h.lld.take(), SenseKey.NOT_READY, 0x04, 0x01);
                h.advanceMillis(30);
            }
            h.lld.completeGood(h.lld.take());
            h.lld.abortResult = EhResult.SUCCESS;
            h.read(h.submitter(d, 0), 2);
            h.lld.take();
            h.advanceMillis(2500);                   // timeout, abort succeeds, retried after error handling
            h.lld.completeGood(h.lld.take());
            assertThat(h.eachExactlyOnce(3)).isTrue();
            ScsiDeviceSnapshot s = h.host.snapshot().devices().get(0);
            assertThat(s.retriesNeedsRetry()).isEqualTo(2);
            assertThat(s.retriesExhausted()).isEqualTo(1);
            assertThat(s.retriesAddToMlqueue()).isEqualTo(3);
            assertThat(s.retriesAfterEh()).isEqualTo(1);
            assertThat(s.failedToEh()).isZero();
        }
    }
}
