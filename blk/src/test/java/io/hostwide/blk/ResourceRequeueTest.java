package io.hostwide.blk;

import io.hostwide.blk.exec.ManualKblockd;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** RESOURCE, DEV_RESOURCE, budgets and requeue, stepped deterministically (digest §2.11, §2.12). */
class ResourceRequeueTest {
    private static final long MS = 1_000_000L;

    private ManualKblockd kb;
    private HoldingDriver drv;
    private TagSet set;
    private RequestQueue q;

    private void setUp(int nrHw, int depth) {
        kb = new ManualKblockd();
        drv = new HoldingDriver();
        set = new TagSet(new TagSetConfig(nrHw, depth, 0, 0, 0, nrHw), drv, kb);
        q = set.addQueue("q");
    }

    private void tearDown() {
        q.close();
        set.close();
    }

    @Test
    void resourceRetriesAfterThreeMilliseconds() {
        setUp(1, 8);
        Counting cb = new Counting();
        drv.script = rq -> BlkStatus.RESOURCE;
        for (int i = 0; i < 4; i++) {
            assertThat(q.submitter(0).trySubmit(ReqOp.READ, 0, 512, null, cb, i)).isTrue();
        }
        assertThat(drv.held).isEmpty();
        Hctx h = q.hctx(0);
        assertThat(h.dispatchBusy()).as("dispatch_busy EWMA").isPositive();
        kb.runDue();   // later submissions were inserted and kicked an async run now
        int calls = drv.queueRqCalls.get();
        kb.advance(2 * MS);
        assertThat(drv.queueRqCalls.get()).as("no retry before BLK_MQ_RESOURCE_DELAY").isEqualTo(calls);
        drv.script = rq -> BlkStatus.OK;
        kb.advance(1 * MS);
        assertThat(drv.held).hasSize(4);
        assertThat(drv.completeAll(BlkStatus.OK)).isEqualTo(4);
        assertThat(cb.eachExactlyOnce(4)).isTrue();
        kb.advance(10 * MS);
        assertThat(h.dispatchListNonEmpty()).isFalse();
        tearDown();
    }

    @Test
    void devResourceWaitsForACompletionNotATimer() {
        setUp(1, 8);
        Counting cb = new Counting();
        Submitter s = q.submitter(0);
        assertThat(s.trySubmit(ReqOp.READ, 0, 512, null, cb, 0)).isTrue();
        assertThat(drv.held).hasSize(1);
        drv.script = rq -> BlkStatus.DEV_RESOURCE;
        assertThat(s.trySubmit(ReqOp.READ, 0, 512, null, cb, 1)).isTrue();
        assertThat(s.trySubmit(ReqOp.READ, 0, 512, null, cb, 2)).isTrue();
        kb.runDue();
        int calls = drv.queueRqCalls.get();
        kb.advance(100 * MS);
        assertThat(drv.queueRqCalls.get()).as("DEV_RESOURCE: no timer re-run").isEqualTo(calls);
        assertThat(q.hctx(0).state() & Hctx.S_SCHED_RESTART).isNotZero();
        drv.script = rq -> BlkStatus.OK;
        assertThat(drv.completeAll(BlkStatus.OK)).isEqualTo(1);   // the completion restarts the hctx
        kb.runDue();
        assertThat(drv.held).hasSize(2);
        drv.completeAll(BlkStatus.OK);
        assertThat(cb.eachExactlyOnce(3)).isTrue();
        tearDown();
    }

    @Test
    void budgetExhaustionResumesWhenBudgetIsReturned() {
        setUp(2, 16);
        drv.budgetLimit = 2;
        Counting cb = new Counting();
        for (int i = 0; i < 8; i++) {
            assertThat(q.submitter(i % 2).trySubmit(ReqOp.READ, 0, 512, null, cb, i)).isTrue();
        }
        kb.advance(10 * MS);
        assertThat(drv.held).hasSize(2);
        int done = 0;
        for (int round = 0; round < 10 && done < 8; round++) {
            done += drv.completeAll(BlkStatus.OK);
            kb.advance(5 * MS);
            assertThat(drv.held.size()).isLessThanOrEqualTo(2);
        }
        assertThat(done).isEqualTo(8);
        assertThat(cb.eachExactlyOnce(8)).isTrue();
        assertThat(drv.budgetInUse.get()).isZero();
        tearDown();
    }

    @Test
    void requeuedRequestsGoBackToTheDispatchListAndComplete() {
        setUp(2, 8);
        Counting cb = new Counting();
        for (int i = 0; i < 6; i++) {
            assertThat(q.submitter(i % 2).trySubmit(ReqOp.WRITE, 0, 512, null, cb, i)).isTrue();
        }
        List<Request> first = new ArrayList<>(drv.held);
        drv.held.clear();
        assertThat(first).hasSize(6);
        for (Request rq : first) {
            rq.setDontPrep();
            rq.requeue(false);
        }
        assertThat(drv.queueRqCalls.get()).isEqualTo(6);
        q.kickRequeueList();
        kb.runDue();
        assertThat(drv.queueRqCalls.get()).isEqualTo(12);
        assertThat(drv.held).hasSize(6);
        // A stale completion of the first issue must not end the re-issued request.
        assertThat(first.get(0).completeIfGeneration(first.get(0).generation() - 1, BlkStatus.IOERR)).isFalse();
        assertThat(drv.completeAll(BlkStatus.OK)).isEqualTo(6);
        assertThat(cb.eachExactlyOnce(6)).isTrue();
        assertThat(cb.status(BlkStatus.OK)).isEqualTo(6);
        tearDown();
    }

    @Test
    void driverErrorsEndTheRequestAndDispatchContinues() {
        setUp(1, 8);
        Counting cb = new Counting();
        drv.script = rq -> rq.offset() == 1024 ? BlkStatus.IOERR : BlkStatus.OK;
        Submitter s = q.submitter(0);
        s.startPlug();
        // Gaps between the reads, so the plug does not merge them.
        for (int i = 0; i < 4; i++) {
            s.submit(ReqOp.READ, i * 1024L, 512, null, cb, i);
        }
        s.finishPlug();
        assertThat(cb.status(BlkStatus.IOERR)).isEqualTo(1);
        assertThat(drv.held).hasSize(3);
        drv.completeAll(BlkStatus.OK);
        assertThat(cb.eachExactlyOnce(4)).isTrue();
        tearDown();
    }

    @Test
    void schedulerRequestsWaitForDriverTagsAndRestartOnCompletion() {
        FifoTestScheduler.register();
        setUp(1, 4);
        q.setScheduler(FifoTestScheduler.NAME);
        assertThat(q.nrRequests()).isEqualTo(8);
        Counting cb = new Counting();
        for (int i = 0; i < 8; i++) {
            assertThat(q.submitter(0).trySubmit(ReqOp.READ, 0, 512, null, cb, i)).isTrue();
        }
        kb.runDue();
        assertThat(drv.held).hasSize(4);
        assertThat(q.hctx(0).state() & Hctx.S_SCHED_RESTART).as("no driver tag: RESTART marked").isNotZero();
        drv.completeAll(BlkStatus.OK);
        kb.runDue();
        assertThat(drv.held).hasSize(4);
        drv.completeAll(BlkStatus.OK);
        kb.runDue();
        assertThat(cb.eachExactlyOnce(8)).isTrue();
        assertThat(q.snapshot().scheduler()).contains("[" + FifoTestScheduler.NAME + "]");
        tearDown();
    }
}
