package io.hostwide.blk;

import io.hostwide.blk.exec.ManualKblockd;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * mq-deadline's dispatch rules (digest §3.1), stepped on a virtual clock: the
 * scheduler is filled while the driver has no budget, then one run shows the order.
 */
class MqDeadlineTest {
    private static final long MS = 1_000_000L;
    private static final long K = 4096;

    private ManualKblockd kb;
    private HoldingDriver drv;
    private TagSet set;
    private RequestQueue q;
    private final Counting cb = new Counting();

    private void setUp(int nrHw, int depth) {
        kb = new ManualKblockd();
        drv = new HoldingDriver();
        set = new TagSet(new TagSetConfig(nrHw, depth, 0, 0, 0, nrHw), drv, kb);
        q = set.addQueue("q");
        q.setScheduler(MqDeadline.NAME);
        drv.budgetLimit = 0;   // hold everything in the scheduler until release()
    }

    /** Drains whatever the scheduler still holds (close() waits for it), then closes. */
    private void tearDown() {
        drv.budgetLimit = -1;
        drv.script = rq -> BlkStatus.OK;
        for (int i = 0; i < 100 && q.allocatedRequests() != 0; i++) {
            for (int hw = 0; hw < q.nrHwQueues(); hw++) {
                q.hctx(hw).runHwQueue(false);
            }
            kb.runDue();
            drv.completeAll(BlkStatus.OK);
        }
        assertThat(q.allocatedRequests()).isZero();
        q.close();
        set.close();
    }

    private void submit(ReqOp op, long offset, long ud) {
        assertThat(q.submitter(0).trySubmit(op, offset, 512, null, cb, ud)).isTrue();
        kb.runDue();
    }

    /** Lets the driver take everything, in the scheduler's order; returns "R<offset/K>" / "W<offset/K>". */
    private List<String> release() {
        drv.budgetLimit = 1000;
        q.hctx(0).runHwQueue(false);
        List<String> order = new ArrayList<>();
        for (Request rq : drv.held) {
            order.add((rq.op() == ReqOp.READ ? "R" : "W") + rq.offset() / K);
        }
        return order;
    }

    @Test
    void dispatchesInSectorOrderFromLatestPos() {
        setUp(1, 64);
        for (long blk : new long[] {50, 10, 30, 20, 40}) {
            submit(ReqOp.READ, blk * K, blk);
        }
        assertThat(release()).containsExactly("R10", "R20", "R30", "R40", "R50");
        tearDown();
    }

    @Test
    void expiredFifoHeadStartsTheNextBatch() {
        setUp(1, 64);
        q.scheduler().setAttribute("fifo_batch", "1");
        submit(ReqOp.READ, 1000 * K, 0);
        kb.advance(600 * MS);   // past read_expire (500 ms)
        submit(ReqOp.READ, 10 * K, 1);
        submit(ReqOp.READ, 20 * K, 2);
        // The first pick continues from latest_pos; the next batch starts at the expired FIFO head.
        assertThat(release()).containsExactly("R10", "R1000", "R20");
        tearDown();
    }

    @Test
    void unexpiredFifoKeepsSectorOrder() {
        setUp(1, 64);
        q.scheduler().setAttribute("fifo_batch", "1");
        submit(ReqOp.READ, 1000 * K, 0);
        kb.advance(100 * MS);
        submit(ReqOp.READ, 10 * K, 1);
        submit(ReqOp.READ, 20 * K, 2);
        assertThat(release()).containsExactly("R10", "R20", "R1000");
        tearDown();
    }

    @Test
    void readBatchRunsToFifoBatchBeforeLookingAtWrites() {
        setUp(1, 64);
        q.scheduler().setAttribute("fifo_batch", "4");
        q.scheduler().setAttribute("writes_starved", "0");
        for (int i = 0; i < 6; i++) {
            submit(ReqOp.READ, i * 2 * K, i);
        }
        for (int i = 0; i < 2; i++) {
            submit(ReqOp.WRITE, (1000 + i * 2) * K, 100 + i);
        }
        // writes_starved=0: the first new batch after the 4-read batch goes to the writes.
        assertThat(release()).containsExactly("R0", "R2", "R4", "R6", "W1000", "W1002", "R8", "R10");
        tearDown();
    }

    @Test
    void writesGetABatchAfterWritesStarvedReadBatches() {
        setUp(1, 64);
        q.scheduler().setAttribute("fifo_batch", "1");
        assertThat(q.scheduler().attribute("writes_starved")).isEqualTo("2");
        for (int i = 0; i < 6; i++) {
            submit(ReqOp.READ, i * 2 * K, i);
        }
        for (int i = 0; i < 3; i++) {
            submit(ReqOp.WRITE, (1000 + i * 2) * K, 100 + i);
        }
        assertThat(release()).containsExactly("R0", "R2", "R4", "W1000", "R6", "R8", "W1002", "R10", "W1004");
        tearDown();
    }

    @Test
    void backAndFrontMergesInTheSchedulerCallEverySubmitterOnce() {
        setUp(1, 64);
        submit(ReqOp.READ, 8 * K, 1);
        submit(ReqOp.READ, 9 * K - 512 + 512, 2);   // starts at 9K... not contiguous with [8K, 8K+512)
        assertThat(q.merges()).isZero();
        submit(ReqOp.READ, 8 * K + 512, 3);         // back merge into [8K, +512)
        submit(ReqOp.READ, 8 * K - 512, 4);         // front merge
        assertThat(q.merges()).isEqualTo(2);
        List<String> order = release();
        assertThat(order).containsExactly("R7", "R9");   // [8K-512, 8K+1024) starts in block 7
        Request merged = drv.held.peek();
        assertThat(merged.nrSegments()).isEqualTo(3);
        assertThat(merged.offset()).isEqualTo(8 * K - 512);
        assertThat(merged.length()).isEqualTo(1536);
        drv.completeAll(BlkStatus.IOERR);
        assertThat(cb.eachExactlyOnce(4)).isTrue();
        assertThat(cb.status(BlkStatus.IOERR)).isEqualTo(4);
        assertThat(q.snapshot().readMerges()).isEqualTo(2);
        tearDown();
    }

    @Test
    void aBioBridgingTwoRequestsJoinsAllThree() {
        setUp(1, 64);
        submit(ReqOp.WRITE, 0, 1);
        submit(ReqOp.WRITE, 1024, 2);
        submit(ReqOp.WRITE, 512, 3);   // back merge into [0,512), then attempt_back_merge takes [1024,1536)
        assertThat(release()).containsExactly("W0");
        assertThat(drv.held.peek().nrSegments()).isEqualTo(3);
        assertThat(q.snapshot().writeMerges()).isEqualTo(2);
        drv.completeAll(BlkStatus.OK);
        assertThat(cb.eachExactlyOnce(3)).isTrue();
        tearDown();
    }

    @Test
    void frontMergesOffStillBackMerges() {
        setUp(1, 64);
        q.scheduler().setAttribute("front_merges", "0");
        q.setNomerges(0);
        submit(ReqOp.READ, 4 * K, 1);
        submit(ReqOp.READ, 8 * K, 2);
        // last_merge (the one-hit cache) is [4K,+512); the front candidate [8K) needs the tree lookup.
        submit(ReqOp.READ, 8 * K - 512, 3);
        assertThat(q.merges()).isZero();
        submit(ReqOp.READ, 4 * K + 512, 4);
        assertThat(q.merges()).isEqualTo(1);
        tearDown();
    }

    @Test
    void nomergesTwoDisablesEveryMerge() {
        setUp(1, 64);
        q.setNomerges(2);
        Submitter s = q.submitter(0);
        s.startPlug();
        for (int i = 0; i < 4; i++) {
            assertThat(s.trySubmit(ReqOp.READ, i * 512L, 512, null, cb, i)).isTrue();
        }
        s.finishPlug();
        for (int i = 4; i < 8; i++) {
            submit(ReqOp.READ, i * 512L, i);
        }
        assertThat(release()).hasSize(8);
        assertThat(q.merges()).isZero();
        drv.completeAll(BlkStatus.OK);
        assertThat(cb.eachExactlyOnce(8)).isTrue();
        tearDown();
    }

    @Test
    void asyncDepthLimitsWritesButNotReads() {
        setUp(1, 8);
        drv.budgetLimit = -1;   // no budgets: the driver holds 8 (driver tags), the rest wait in the scheduler
        assertThat(q.nrRequests()).isEqualTo(16);
        assertThat(q.scheduler().attribute("async_depth")).isEqualTo("12");
        int writes = 0;
        while (q.submitter(0).trySubmit(ReqOp.WRITE, writes * 2 * K, 512, null, cb, writes)) {
            writes++;
            kb.runDue();
        }
        assertThat(writes).isEqualTo(12);
        int reads = 0;
        while (q.submitter(0).trySubmit(ReqOp.READ, (1000 + reads * 2) * K, 512, null, cb, 100 + reads)) {
            reads++;
        }
        assertThat(reads).isEqualTo(4);
        assertThatThrownBy(() -> q.scheduler().setAttribute("async_depth", "17"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("async_depth");
        tearDown();
    }

    @Test
    void tunablesAreReadableAndWritableAndCheckedAtRunTime() {
        setUp(1, 8);
        IoScheduler e = q.scheduler();
        assertThat(e.attributeNames()).contains("read_expire", "write_expire", "writes_starved", "fifo_batch",
                "front_merges", "async_depth");
        assertThat(e.attribute("read_expire")).isEqualTo("500");
        assertThat(e.attribute("write_expire")).isEqualTo("5000");
        assertThat(e.attribute("fifo_batch")).isEqualTo("16");
        assertThat(e.attribute("front_merges")).isEqualTo("1");
        e.setAttribute("read_expire", "250");
        assertThat(e.attribute("read_expire")).isEqualTo("250");
        assertThatThrownBy(() -> e.setAttribute("fifo_batch", "0")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> e.setAttribute("front_merges", "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> e.setAttribute("nope", "1")).isInstanceOf(IllegalArgumentException.class);
        assertThat(q.snapshot().scheduler()).startsWith("none ").contains("[mq-deadline]");
        tearDown();
    }

    @Test
    void sqSchedRunsOnlyTheCurrentHctxAndThoseWithDispatchWork() {
        setUp(4, 8);
        drv.budgetLimit = -1;
        drv.script = rq -> BlkStatus.DEV_RESOURCE;
        assertThat(q.submitter(3).trySubmit(ReqOp.READ, 0, 512, null, cb, 0)).isTrue();
        kb.runDue();   // hctx 3 takes it and the driver hands it back: on hctx 3's dispatch list
        assertThat(q.hctx(3).dispatchListNonEmpty()).isTrue();
        drv.budgetLimit = 0;
        assertThat(q.submitter(0).trySubmit(ReqOp.READ, 8 * K, 512, null, cb, 1)).isTrue();
        kb.runDue();   // no budget: stays in the scheduler
        assertThat(kb.pendingCount()).isZero();
        q.runHwQueues(q.ctx(1), true);
        assertThat(kb.pendingNames()).hasSize(2)
                .anyMatch(n -> n.startsWith("q/hctx1/run")).anyMatch(n -> n.startsWith("q/hctx3/run"));
        drv.budgetLimit = -1;
        drv.script = rq -> BlkStatus.OK;
        kb.runDue();
        q.runHwQueues(q.ctx(1), false);
        assertThat(drv.held).hasSize(2);
        tearDown();
    }
}
