package io.hostwide.blk;

import io.hostwide.blk.exec.ManualKblockd;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Seed 001: each of Kashyap Desai's three changes switched on and off changes the mechanism (fair-share users and
 * limits, completion re-runs, wake-alls), counted, never timed.
 */
class SharedTagModesTest {

    private static final IoCallback IGNORE = (ud, st) -> { };
    private static final int DEPTH = 32;

    private static TagSet hostWide(HoldingDriver drv, ManualKblockd kb, int hwQueues, int modes) {
        TagSet set = new TagSet(new TagSetConfig(hwQueues, DEPTH, 0, 0, TagSetFlags.TAG_HCTX_SHARED, hwQueues), drv, kb);
        set.setSharedTagModes(modes);
        return set;
    }

    private static int fill(Submitter s) {
        int n = 0;
        while (s.trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)) {
            n++;
        }
        return n;
    }

    /** Queue a on hctx 0 and 1, queue b on hctx 0; then a takes all it may. Returns what a holds. */
    private static int heldByBusyQueue(int modes, int expectedUsers) {
        ManualKblockd kb = new ManualKblockd();
        HoldingDriver drv = new HoldingDriver();
        TagSet set = hostWide(drv, kb, 2, modes);
        RequestQueue a = set.addQueue("a");
        RequestQueue b = set.addQueue("b");
        a.setScheduler("none");
        b.setScheduler("none");
        Submitter a0 = a.submitter(0);
        Submitter a1 = a.submitter(1);
        assertThat(a0.trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)).isTrue();
        assertThat(a1.trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)).isTrue();
        assertThat(b.submitter(0).trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)).isTrue();
        assertThat(set.tags(0).activeQueues()).isEqualTo(expectedUsers);
        fill(a0);
        fill(a1);
        int held = drv.heldFor(a);
        drv.completeAll(BlkStatus.OK);
        assertThat(a.nrActiveShared()).isZero();
        assertThat(a.hctx(0).nrActive() + a.hctx(1).nrActive()).isZero();
        a.close();
        b.close();
        set.close();
        return held;
    }

    @Test
    void changeOneCountsOneUserPerQueueAndItsOutstandingAcrossHctxs() {
        // Improved: users = queues (2), a's share ceil(32/2) = 16 over both of its hctxs.
        assertThat(heldByBusyQueue(SharedTagModes.IMPROVED, 2)).isEqualTo(16);
        // Old: users = active hctxs (3), each of a's hctxs gets ceil(32/3) = 11 of its own: 22 in all.
        assertThat(heldByBusyQueue(SharedTagModes.OUTSTANDING_PER_HCTX, 3)).isEqualTo(22);
    }

    @Test
    void switchingChangeOneUnderIoKeepsTheCountsBalanced() {
        ManualKblockd kb = new ManualKblockd();
        HoldingDriver drv = new HoldingDriver();
        TagSet set = hostWide(drv, kb, 2, SharedTagModes.OUTSTANDING_PER_HCTX);
        RequestQueue a = set.addQueue("a");
        RequestQueue b = set.addQueue("b");
        a.setScheduler("none");
        b.setScheduler("none");
        for (int i = 0; i < 3; i++) {
            assertThat(a.submitter(0).trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)).isTrue();
        }
        set.setSharedTagModes(SharedTagModes.IMPROVED);
        for (int i = 0; i < 2; i++) {
            assertThat(a.submitter(1).trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)).isTrue();
        }
        assertThat(a.hctx(0).nrActive()).isEqualTo(3);
        assertThat(a.nrActiveShared()).isEqualTo(2);
        assertThat(drv.completeAll(BlkStatus.OK)).isEqualTo(5);
        assertThat(a.hctx(0).nrActive()).isZero();
        assertThat(a.nrActiveShared()).isZero();
        kb.advance(6_000_000_000L);   // idle: both the per-hctx and the per-queue user go away
        assertThat(set.tags(0).activeQueues()).isZero();
        a.close();
        b.close();
        set.close();
    }

    private static long completionRunsFor(int modes) {
        ManualKblockd kb = new ManualKblockd();
        HoldingDriver drv = new HoldingDriver();
        TagSet set = hostWide(drv, kb, 4, modes);
        RequestQueue q = set.addQueue("q");
        q.setScheduler("none");
        assertThat(q.submitter(0).trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)).isTrue();
        assertThat(drv.completeAll(BlkStatus.OK)).isEqualTo(1);
        long runs = q.completionRuns();
        q.close();
        set.close();
        return runs;
    }

    @Test
    void changeTwoReRunsOnlyTheCompletingHctx() {
        assertThat(completionRunsFor(SharedTagModes.RUN_ALL_HCTX_ON_COMPLETION)).isEqualTo(4);
        assertThat(completionRunsFor(SharedTagModes.RUN_COMPLETING_HCTX_ON_COMPLETION)).isEqualTo(1);
        assertThat(completionRunsFor(SharedTagModes.IMPROVED)).isZero();
    }

    private static long wakeAllsWhenAQueueGoesIdle(int modes) {
        ManualKblockd kb = new ManualKblockd();
        HoldingDriver drv = new HoldingDriver();
        TagSet set = hostWide(drv, kb, 4, modes);
        RequestQueue a = set.addQueue("a");
        RequestQueue b = set.addQueue("b");
        a.setScheduler("none");
        b.setScheduler("none");
        assertThat(a.submitter(0).trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)).isTrue();   // stays in flight
        Request held = drv.held.poll();
        for (int c = 0; c < 4; c++) {
            assertThat(b.submitter(c).trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)).isTrue();
        }
        assertThat(drv.completeAll(BlkStatus.OK)).isEqualTo(4);
        long before = set.tags(0).wakeAllCalls();
        kb.advance(6_000_000_000L);   // b's timeout work finds it idle
        long wakes = set.tags(0).wakeAllCalls() - before;
        assertThat(held.complete(BlkStatus.OK)).isTrue();
        a.close();
        b.close();
        set.close();
        return wakes;
    }

    @Test
    void changeThreeWakesAllOncePerTagSpace() {
        assertThat(wakeAllsWhenAQueueGoesIdle(SharedTagModes.WAKE_ALL_PER_HCTX)).isEqualTo(4);
        assertThat(wakeAllsWhenAQueueGoesIdle(SharedTagModes.IMPROVED)).isEqualTo(1);
        // With per-hctx users too, each of b's four hctxs was a user: still one wake-all for the tag space.
        assertThat(wakeAllsWhenAQueueGoesIdle(SharedTagModes.OUTSTANDING_PER_HCTX)).isEqualTo(1);
    }

    @Test
    void modesParseAndPrint() {
        assertThat(SharedTagModes.parse("old")).isEqualTo(SharedTagModes.OLD);
        assertThat(SharedTagModes.parse("improved")).isEqualTo(SharedTagModes.IMPROVED);
        int m = SharedTagModes.parse("outstanding_per_hctx+run_completing_hctx");
        assertThat(SharedTagModes.decode(m)).isEqualTo("outstanding_per_hctx+run_completing_hctx");
        assertThat(SharedTagModes.decode(SharedTagModes.OLD))
                .isEqualTo("outstanding_per_hctx+run_all_hctx+wake_all_per_hctx");
        assertThatThrownBy(() -> SharedTagModes.parse("fast")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fast");
        assertThatThrownBy(() -> SharedTagModes.parse("run_all_hctx+run_completing_hctx"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exclude");
        TagSet set = new TagSet(TagSetConfig.of(1, 4), new HoldingDriver(), new ManualKblockd());
        assertThatThrownBy(() -> set.setSharedTagModes(1 << 20)).isInstanceOf(IllegalArgumentException.class);
        set.close();
    }
}
