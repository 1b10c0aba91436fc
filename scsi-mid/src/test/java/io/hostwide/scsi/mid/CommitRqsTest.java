package io.hostwide.scsi.mid;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.blk.Submitter;
import org.junit.jupiter.api.Test;

/**
 * {@code SCMD_LAST} and {@code commit_rqs}: a driver that holds commands back until the last of a batch (the iSCSI
 * initiator writes a batch of command PDUs at once) must be told which command is last, and must be told to send
 * when a batch ends on a command that never reached it, or it would hold the others forever.
 */
class CommitRqsTest {

    private static MidHarness harness() {
        return new MidHarness(new ScsiHostTemplate().canQueue(64).cmdPerLun(64));
    }

    @Test
    void aPluggedBatchMarksOnlyItsFinalCommandLast() {
        try (MidHarness h = harness()) {
            Submitter s = h.submitter(h.addLun(0), 0);
            s.startPlug();
            for (int i = 0; i < 4; i++) {
                h.read(s, 8 * i);   // not adjacent: the plug would merge neighbours into one request
            }
            assertThat(h.lld.lastFlags).as("held by the plug").isEmpty();
            s.finishPlug();
            h.kblockd.runDue();
            assertThat(h.lld.lastFlags).containsExactly(false, false, false, true);
            assertThat(h.lld.commits).as("the batch ended on a last command").isEmpty();
        }
    }

    @Test
    void anUnpluggedCommandIsLast() {
        try (MidHarness h = harness()) {
            Submitter s = h.submitter(h.addLun(0), 0);
            h.read(s, 1);
            h.read(s, 2);
            assertThat(h.lld.lastFlags).containsExactly(true, true);
            assertThat(h.lld.commits).isEmpty();
        }
    }

    @Test
    void aBatchWhoseLastCommandIsRefusedIsCommitted() {
        try (MidHarness h = harness()) {
            Submitter s = h.submitter(h.addLun(0), 0);
            int[] offered = {0};
            h.lld.refuse = c -> ++offered[0] == 3 ? LowLevelDriver.HOST_BUSY : LowLevelDriver.OK;
            s.startPlug();
            for (int i = 0; i < 3; i++) {
                h.read(s, 8 * i);
            }
            s.finishPlug();
            assertThat(h.lld.lastFlags.subList(0, 3)).containsExactly(false, false, true);
            assertThat(h.lld.issuedCount()).isEqualTo(2);
            assertThat(h.lld.commits).as("two commands held back, the last refused: commit_rqs sends them")
                    .containsExactly(0);
        }
    }
}
