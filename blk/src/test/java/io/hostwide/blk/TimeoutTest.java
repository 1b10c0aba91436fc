package io.hostwide.blk;

import io.hostwide.blk.exec.ManualKblockd;
import io.hostwide.blk.exec.ThreadPoolKblockd;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Request timeouts (digest §2.13): one timer per queue, driver handler RESET_TIMER / DONE, completion CAS race. */
class TimeoutTest {
    private static final long SEC = 1_000_000_000L;

    /**
     * Deadlines come from one clock read per dispatch batch (a plug's direct issue, a queue run): every request
     * of a batch gets that batch's time, and a request the driver refused is re-armed from the time of the run
     * that finally issues it, never from the stale time of the refused attempt.
     */
    @Test
    void deadlinesFollowTheClockOfTheBatchThatIssuedThem() {
        ManualKblockd kb = new ManualKblockd();
        HoldingDriver drv = new HoldingDriver();
        TagSet set = new TagSet(new TagSetConfig(1, 8, 0, 2000, 0, 1), drv, kb);
        RequestQueue q = set.addQueue("q");
        Submitter s = q.submitter(0);
        Counting cb = new Counting();
        kb.advance(3 * SEC);
        s.startPlug();
        for (int i = 0; i < 3; i++) {
            s.submit(ReqOp.READ, i * 4096L, 512, null, cb, i);
        }
        s.finishPlug();
        assertThat(drv.held).hasSize(3).allSatisfy(rq -> assertThat(rq.deadline()).isEqualTo(5 * SEC));
        drv.completeAll(BlkStatus.OK);
        drv.script = rq -> BlkStatus.DEV_RESOURCE;
        s.submit(ReqOp.READ, 0, 512, null, cb, 10);   // refused at t = 3 s (directly, then by the re-run)
        assertThat(drv.held).isEmpty();
        assertThat(drv.queueRqCalls.get()).isGreaterThan(3);
        drv.script = rq -> BlkStatus.OK;
        kb.advance(SEC);
        q.hctx(0).runHwQueue(false);                     // issued by a run at t = 4 s
        assertThat(drv.held).hasSize(1).allSatisfy(rq -> assertThat(rq.deadline()).isEqualTo(6 * SEC));
        drv.completeAll(BlkStatus.OK);
        assertThat(cb.eachExactlyOnce(4)).isTrue();
        q.close();
        set.close();
    }

    @Test
    void resetTimerKeepsTheRequestAndCallsTheHandlerAgain() {
        ManualKblockd kb = new ManualKblockd();
        HoldingDriver drv = new HoldingDriver();
        TagSet set = new TagSet(new TagSetConfig(1, 8, 0, 2000, 0, 1), drv, kb);
        RequestQueue q = set.addQueue("q");
        Counting cb = new Counting();
        assertThat(q.submitter(0).trySubmit(ReqOp.READ, 0, 512, null, cb, 1)).isTrue();
        kb.advance(1 * SEC);
        assertThat(drv.timedOut).isEmpty();
        kb.advance(2 * SEC);   // deadline 2 s, timer rounded up to 2 s
        assertThat(drv.timedOut).hasSize(1);
        Request rq = drv.timedOut.get(0);
        assertThat(rq.isInFlight()).isTrue();
        assertThat(rq.isTimedOut()).as("TIMED_OUT cleared by RESET_TIMER").isFalse();
        kb.advance(SEC + SEC / 2);   // t = 4.5 s: re-armed deadline 4 s passed
        assertThat(drv.timedOut).as("handler called again after the re-armed deadline").hasSize(2);
        kb.advance(SEC);             // t = 5.5 s: next deadline is 6 s
        assertThat(drv.timedOut).hasSize(2);
        assertThat(cb.total.get()).isZero();
        assertThat(drv.completeAll(BlkStatus.OK)).isEqualTo(1);
        assertThat(cb.status(BlkStatus.OK)).isEqualTo(1);
        assertThat(q.snapshot().timeouts()).isEqualTo(2);
        q.close();
        set.close();
    }

    @Test
    void doneLetsTheDriverCompleteAndALateCompletionIsIgnored() {
        ManualKblockd kb = new ManualKblockd();
        HoldingDriver drv = new HoldingDriver();
        drv.onTimeout = rq -> {
            assertThat(rq.complete(BlkStatus.TIMEOUT)).isTrue();
            return TimeoutAction.DONE;
        };
        TagSet set = new TagSet(new TagSetConfig(2, 8, 0, 1000, 0, 2), drv, kb);
        RequestQueue q = set.addQueue("q");
        Counting cb = new Counting();
        for (int i = 0; i < 4; i++) {
            assertThat(q.submitter(i % 2).trySubmit(ReqOp.WRITE, 0, 512, null, cb, i)).isTrue();
        }
        List<Request> issued = new ArrayList<>(drv.held);
        List<Integer> gens = new ArrayList<>();
        for (Request rq : issued) {
            gens.add(rq.generation());
        }
        kb.advance(2 * SEC);
        assertThat(drv.timedOut).hasSize(4);
        assertThat(cb.status(BlkStatus.TIMEOUT)).isEqualTo(4);
        assertThat(cb.eachExactlyOnce(4)).isTrue();
        for (int i = 0; i < issued.size(); i++) {
            assertThat(issued.get(i).completeIfGeneration(gens.get(i), BlkStatus.OK)).isFalse();
        }
        assertThat(cb.total.get()).isEqualTo(4);
        assertThat(q.allocatedRequests()).isZero();
        q.close();
        set.close();
    }

    @Test
    void completionRacingTheTimeoutWorkEndsEachRequestExactlyOnce() throws Exception {
        try (ThreadPoolKblockd kb = new ThreadPoolKblockd("race", 1)) {
            HoldingDriver drv = new HoldingDriver();
            AtomicInteger handlerCompleted = new AtomicInteger();
            drv.onTimeout = rq -> {
                if (rq.complete(BlkStatus.TIMEOUT)) {
                    handlerCompleted.incrementAndGet();
                }
                return TimeoutAction.DONE;
            };
            TagSet set = new TagSet(new TagSetConfig(1, 64, 0, 0, 0, 1), drv, kb);
            RequestQueue q = set.addQueue("q");
            Counting cb = new Counting();
            Submitter s = q.submitter(0);
            int rounds = 200;
            for (int r = 0; r < rounds; r++) {
                q.setTimeoutMillis(1);
                for (int i = 0; i < 64; i++) {
                    assertThat(s.trySubmit(ReqOp.READ, 0, 512, null, cb, (long) r * 64 + i)).isTrue();
                }
                List<Request> batch = new ArrayList<>(drv.held);
                drv.held.clear();
                Thread.sleep(2);   // every deadline (1 ms) has passed
                Thread completer = new Thread(() -> {
                    for (Request rq : batch) {
                        rq.complete(BlkStatus.OK);
                    }
                });
                completer.start();
                q.timeouts.timeoutWork();
                completer.join();
            }
            assertThat(cb.eachExactlyOnce(rounds * 64)).isTrue();
            assertThat(cb.status(BlkStatus.OK) + cb.status(BlkStatus.TIMEOUT)).isEqualTo(rounds * 64);
            assertThat(cb.status(BlkStatus.TIMEOUT)).isEqualTo(handlerCompleted.get()).isPositive();
            assertThat(q.allocatedRequests()).isZero();
            q.close();
            set.close();
        }
    }

    @Test
    void handlerWaitsForAQueueRqStillIssuingTheRequest() throws Exception {
        try (ManualKblockd kb = new ManualKblockd()) {
            java.util.concurrent.CountDownLatch inQueueRq = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.atomic.AtomicBoolean issuing = new java.util.concurrent.atomic.AtomicBoolean(true);
            java.util.concurrent.atomic.AtomicBoolean handlerSawIssuing = new java.util.concurrent.atomic.AtomicBoolean();
            HoldingDriver drv = new HoldingDriver() {
                @Override
                public BlkStatus queueRq(Hctx hctx, Request rq, boolean last) {
                    rq.start();
                    held.add(rq);
                    inQueueRq.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    issuing.set(false);
                    return BlkStatus.OK;
                }
            };
            drv.onTimeout = rq -> {
                handlerSawIssuing.set(issuing.get());
                rq.complete(BlkStatus.TIMEOUT);
                return TimeoutAction.DONE;
            };
            TagSet set = new TagSet(new TagSetConfig(1, 4, 0, 0, 0, 1), drv, kb);
            RequestQueue q = set.addQueue("q");
            q.setTimeoutMillis(1);
            Counting cb = new Counting();
            Thread submitter = new Thread(() -> q.submitter(0).submit(ReqOp.READ, 0, 512, null, cb, 7));
            submitter.start();
            assertThat(inQueueRq.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            kb.advance(2_000_000);   // t = 2 ms: the 1 ms deadline has passed while queue_rq still runs (timer: 1 s)
            long waits = q.hctx(0).graceWaits.get();
            Thread scanner = new Thread(q.timeouts::timeoutWork);
            scanner.start();
            DispatchSrcuTest.awaitGraceWait(q.hctx(0), waits);   // the timeout work found the dispatch in progress
            assertThat(scanner.isAlive()).as("timeout work waits for the dispatch in progress").isTrue();
            assertThat(drv.timedOut).as("the handler runs only after queue_rq returned").isEmpty();
            release.countDown();
            scanner.join(5000);
            submitter.join(5000);
            assertThat(scanner.isAlive()).isFalse();
            assertThat(drv.timedOut).hasSize(1);
            assertThat(handlerSawIssuing.get()).isFalse();
            assertThat(cb.status(BlkStatus.TIMEOUT)).isEqualTo(1);
            q.close();
            set.close();
        }
    }
}
