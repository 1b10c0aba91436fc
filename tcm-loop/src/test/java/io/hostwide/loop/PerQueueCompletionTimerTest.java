package io.hostwide.loop;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.IoCallback;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.RequestQueue;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Delayed completions per submit queue (scsi_debug keeps its deferred completions per queue): each hardware queue
 * has its own timer thread, error handling takes a command back from its queue's timer exactly once, and close
 * leaves no timer thread behind.
 */
class PerQueueCompletionTimerTest {

    /** Completions per userData, the completing thread's name, the status, and the hctx each was submitted on. */
    private static final class Seen {
        final Map<Long, AtomicInteger> count = new ConcurrentHashMap<>();
        final Map<Long, String> thread = new ConcurrentHashMap<>();
        final Map<Long, BlkStatus> status = new ConcurrentHashMap<>();
        final Map<Long, Integer> hwq = new ConcurrentHashMap<>();
        final AtomicInteger done = new AtomicInteger();
        final IoCallback cb = (ud, st) -> {
            thread.put(ud, Thread.currentThread().getName());
            status.put(ud, st);
            count.computeIfAbsent(ud, k -> new AtomicInteger()).incrementAndGet();
            done.incrementAndGet();
        };

        /** One 512-byte read from every software queue, {@code perCtx} each; returns how many were submitted. */
        int readFromEveryCtx(RequestQueue q, int perCtx) {
            int n = 0;
            for (int c = 0; c < q.nrCtx(); c++) {
                var s = q.submitter(c);
                for (int i = 0; i < perCtx; i++, n++) {
                    hwq.put((long) n, q.ctx(c).hctx().queueNum());
                    s.submit(ReqOp.READ, 4096L * n, 512, ByteBuffer.allocate(512), cb, n);
                }
            }
            return n;
        }

        void await(int n, long millis) throws InterruptedException {
            long end = System.nanoTime() + millis * 1_000_000L;
            while (done.get() < n) {
                if (System.nanoTime() > end) {
                    throw new AssertionError((n - done.get()) + " of " + n + " requests never completed");
                }
                Thread.sleep(1);
            }
        }

        void assertEachOnceOk(int n) {
            assertThat(count).hasSize(n);
            assertThat(count.values()).allSatisfy(c -> assertThat(c.get()).as("completions of one command").isEqualTo(1));
            assertThat(status.values()).containsOnly(BlkStatus.OK);
        }
    }

    @Test
    void completionsOfEachSubmitQueueGoThroughThatQueuesTimerAndEachCompletesOnce() throws Exception {
        LoopHba hba = LoopHba.create(DebugParams.parse("submit_queues=4,max_queue=64,dev_size_mb=1,ndelay=200000"));
        try (hba) {
            RequestQueue q = hba.disk(0).scsiDevice().queue();
            assertThat(q.nrHwQueues()).isEqualTo(4);
            Seen seen = new Seen();
            int n = seen.readFromEveryCtx(q, 8);
            seen.await(n, 60_000);
            seen.assertEachOnceOk(n);
            Set<String> timers = new HashSet<>(seen.thread.values());
            assertThat(timers).as("one timer thread per submit queue").hasSize(4);
            for (long ud = 0; ud < n; ud++) {
                assertThat(seen.thread.get(ud)).as("completion of a command issued on hctx " + seen.hwq.get(ud))
                        .endsWith("-q" + seen.hwq.get(ud) + "-completion");
            }
            assertThat(hba.completionThreads()).isEqualTo(4);
        }
        assertThat(hba.completionThreads()).as("no timer thread outlives close").isZero();
    }

    @Test
    void noTimerThreadRunsWhileEveryCompletionIsInline() throws Exception {
        try (LoopHba hba = LoopHba.create(DebugParams.parse("submit_queues=4,dev_size_mb=1,delay=0"))) {
            Seen seen = new Seen();
            int n = seen.readFromEveryCtx(hba.disk(0).scsiDevice().queue(), 2);
            seen.await(n, 60_000);
            seen.assertEachOnceOk(n);
            assertThat(hba.completionThreads()).isZero();
        }
    }

    /**
     * Commands held in their queues' timers past io_timeout: error handling takes each back (ABORT TASK) and the
     * retry completes it; the timer entries it took back never deliver a second completion. Expiry is rounded up
     * to a whole second (blk_add_timer), so the timeout fires 1-2 s after submission; the delay outlasts that, and
     * (allowed + 1) x io_timeout = 6 s leaves room for a retry that raced the delay change to time out once more.
     * The test ends once every timer entry was handled, whatever the machine's load.
     */
    @Test
    void commandsAbortedWhilePendingInTheirQueuesTimersCompleteExactlyOnce() throws Exception {
        try (LoopHba hba = LoopHba.create(DebugParams.parse("submit_queues=4,dev_size_mb=1,delay=0,io_timeout=1000"))) {
            RequestQueue q = hba.disk(0).scsiDevice().queue();
            hba.setDelayNanos(2_500_000_000L);   // after the scan, so scanning stays fast
            Seen seen = new Seen();
            long start = System.nanoTime();
            int n = seen.readFromEveryCtx(q, 1);
            var host = hba.hosts().get(0);
            long end = start + 60_000_000_000L;
            while (host.snapshot().ehAborts() == 0) {
                assertThat(System.nanoTime()).as("a timed-out command was aborted").isLessThan(end);
                Thread.sleep(1);
            }
            hba.setDelayNanos(0);   // the retries complete inline
            seen.await(n, 60_000);
            // Every timer entry handled (fired, skipped or cancelled): a positive signal, not a window, that an
            // entry the abort missed has had its chance to deliver a second completion.
            while (hba.timerEntriesOutstanding() != 0) {
                assertThat(System.nanoTime()).as("timer entries still pending: " + hba.timerEntriesOutstanding())
                        .isLessThan(end);
                Thread.sleep(1);
            }
            seen.assertEachOnceOk(n);
            assertThat(hba.completionThreads()).as("every queue's timer held a command").isEqualTo(4);
        }
    }

    @Test
    void closeWithDelayedCommandsPendingCompletesEachOnceAndStopsEveryTimer() throws Exception {
        LoopHba hba = LoopHba.create(DebugParams.parse("submit_queues=4,dev_size_mb=1,delay=30"));
        Seen seen = new Seen();
        int n = seen.readFromEveryCtx(hba.disk(0).scsiDevice().queue(), 2);
        hba.close();
        assertThat(seen.done.get()).as("close returned with every command answered").isEqualTo(n);
        seen.assertEachOnceOk(n);
        assertThat(hba.completionThreads()).isZero();
    }
}
