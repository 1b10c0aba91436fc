package io.hostwide.scsi.mid;

import io.hostwide.blk.BlkStatus;
import io.hostwide.scsi.spec.ScsiStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** TASK SET FULL tracking lowers queue_depth for every LUN of the target; GOOD completions ramp it back (digest §4.5). */
class QueueFullTest {

    @Test
    void elevenQueueFullsInSeparateWindowsLowerTheDepthThenRampUpRestoresIt() {
        ScsiHostTemplate t = new ScsiHostTemplate().canQueue(16).cmdPerLun(8).trackQueueDepth(true)
                .queueRampUpPeriodMillis(1000);
        try (MidHarness h = new MidHarness(t)) {
            ScsiDevice a = h.addLun(0);
            ScsiDevice b = h.addLun(1);
            h.read(h.submitter(a, 0), 0);
            for (int i = 0; i < 10; i++) {
                ScsiCmnd c = h.lld.take();
                assertThat(c).isNotNull();
                h.lld.completeStatus(c, ScsiStatus.TASK_SET_FULL);
                h.advanceMillis(20);
            }
            assertThat(a.queueDepth()).as("ten events are not enough").isEqualTo(8);
            h.lld.completeStatus(h.lld.take(), ScsiStatus.TASK_SET_FULL);
            assertThat(a.queueDepth()).isEqualTo(7);
            assertThat(b.queueDepth()).as("all LUNs of the target").isEqualTo(7);
            // Two events in the same 16 ms window count once.
            h.advanceMillis(20);
            h.lld.completeStatus(h.lld.take(), ScsiStatus.TASK_SET_FULL);
            h.advanceMillis(20);
            h.lld.completeGood(h.lld.take());
            assertThat(h.statuses.get(0L)).isEqualTo(BlkStatus.OK);
            assertThat(a.queueDepth()).as("no ramp-up within the period after a QUEUE FULL").isEqualTo(7);

            h.advanceMillis(1100);
            h.read(h.submitter(a, 0), 1);
            h.lld.completeGood(h.lld.take());
            assertThat(a.queueDepth()).isEqualTo(8);
            assertThat(b.queueDepth()).isEqualTo(8);
            h.read(h.submitter(a, 0), 2);
            h.lld.completeGood(h.lld.take());
            assertThat(a.queueDepth()).as("back at cmd_per_lun, the ramp-up limit").isEqualTo(8);
            assertThat(h.eachExactlyOnce(3)).isTrue();
        }
    }

    @Test
    void withoutTrackQueueDepthTheDepthNeverChanges() {
        try (MidHarness h = new MidHarness(new ScsiHostTemplate().canQueue(16).cmdPerLun(8))) {
            ScsiDevice a = h.addLun(0);
            h.read(h.submitter(a, 0), 0);
            for (int i = 0; i < 15; i++) {
                h.lld.completeStatus(h.lld.take(), ScsiStatus.TASK_SET_FULL);
                h.advanceMillis(20);
            }
            assertThat(a.queueDepth()).isEqualTo(8);
            h.lld.completeGood(h.lld.take());
            assertThat(h.eachExactlyOnce(1)).isTrue();
        }
    }
}
