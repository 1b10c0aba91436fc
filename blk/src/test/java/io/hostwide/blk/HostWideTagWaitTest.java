package io.hostwide.blk;

import io.hostwide.blk.exec.ManualKblockd;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Regression for Kemeng Shi's "Fix potential io hung for shared sbitmap per
 * tagset": with host-wide tags a driver tag freed by hctx B must re-run hctx A,
 * whose request waits for a driver tag. SCHED_RESTART only restarts the freeing
 * request's own hctx, so this needs the non-exclusive dispatch_wait entry.
 */
class HostWideTagWaitTest {

    @Test
    void tagFreedOnAnotherHctxRerunsTheWaitingOne() {
        FifoTestScheduler.register();
        ManualKblockd kb = new ManualKblockd();
        HoldingDriver drv = new HoldingDriver();
        // Two hctxs, two ctxs (ctx0 -> hctx0, ctx1 -> hctx1), two host-wide driver tags.
        TagSet set = new TagSet(new TagSetConfig(2, 2, 0, 0, TagSetFlags.TAG_HCTX_SHARED, 2), drv, kb);
        RequestQueue q = set.addQueue("q");
        q.setScheduler(FifoTestScheduler.NAME);
        Counting cb = new Counting();
        Submitter onB = q.submitter(1);
        Submitter onA = q.submitter(0);
        assertThat(onB.trySubmit(ReqOp.READ, 0, 512, null, cb, 1)).isTrue();
        assertThat(onB.trySubmit(ReqOp.READ, 0, 512, null, cb, 2)).isTrue();
        kb.runDue();
        assertThat(drv.held).hasSize(2);
        assertThat(drv.held).allMatch(rq -> rq.hctx() == q.hctx(1));

        assertThat(onA.trySubmit(ReqOp.READ, 0, 512, null, cb, 3)).isTrue();
        kb.runDue();
        assertThat(drv.held).hasSize(2);
        Hctx a = q.hctx(0);
        assertThat(a.snapshotWaitQueued()).as("hctx A parked on the tag bitmap").isTrue();

        Request fromB = drv.held.poll();
        assertThat(fromB.complete(BlkStatus.OK)).isTrue();   // frees a tag on hctx B
        kb.runDue();
        assertThat(drv.held).hasSize(2);
        assertThat(drv.held).anyMatch(rq -> rq.hctx() == a);
        drv.completeAll(BlkStatus.OK);
        kb.runDue();
        assertThat(cb.eachExactlyOnce(3)).isTrue();
        q.close();
        set.close();
    }
}
