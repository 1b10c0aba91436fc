package io.hostwide.blk;

import io.hostwide.blk.exec.ThreadPoolKblockd;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * More submitting threads than tags on one shared tag set (host-wide tags or shared queues), unevenly spread
 * over four queues so that some queues keep hitting their fair share (hctx_may_queue) while others wait for a
 * bit: with exclusive tag waiters a wake-up taken by a waiter that cannot use it must not be lost. Every
 * thread must finish all its submissions and every request complete exactly once; a lost wake-up is a hang,
 * which the preemptive timeout turns into a failure. No timing is asserted.
 */
class TagWaiterStressTest {
    private static final int[] THREADS_PER_QUEUE = {10, 6, 3, 1};
    private static final int IOS_PER_THREAD = 250;

    @ParameterizedTest(name = "hostTagset={0} hwQueues={1} depth={2} scheduler={3}")
    @CsvSource({
        "true, 2, 12, none", "false, 2, 12, none", "true, 1, 5, none", "false, 1, 5, none",
        "true, 2, 12, test-fifo",
    })
    void everyThreadFinishesAllItsSubmissions(boolean hostTagset, int hwQueues, int depth, String scheduler) {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> run(hostTagset, hwQueues, depth, scheduler));
    }

    private void run(boolean hostTagset, int hwQueues, int depth, String scheduler) throws Exception {
        FifoTestScheduler.register();
        ScheduledExecutorService completer = Executors.newScheduledThreadPool(2);
        LatencyDriver drv = new LatencyDriver(completer, 0, 0, 0, 0);
        int flags = hostTagset ? TagSetFlags.TAG_HCTX_SHARED : 0;
        int nrThreads = 0;
        for (int n : THREADS_PER_QUEUE) {
            nrThreads += n;
        }
        AtomicIntegerArray done = new AtomicIntegerArray(nrThreads);
        Counting cb = new Counting();
        try (ThreadPoolKblockd kb = new ThreadPoolKblockd("tws", 2)) {
            TagSet set = new TagSet(new TagSetConfig(hwQueues, depth, 0, 0, flags, 4), drv, kb);
            List<RequestQueue> qs = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            int id = 0;
            for (int qi = 0; qi < THREADS_PER_QUEUE.length; qi++) {
                RequestQueue q = set.addQueue("q" + qi);
                q.setScheduler(scheduler);
                qs.add(q);
                for (int t = 0; t < THREADS_PER_QUEUE[qi]; t++) {
                    Submitter s = q.submitter(t % q.nrCtx());
                    int me = id++;
                    Thread th = Thread.ofPlatform().daemon().name("tws-" + qi + "-" + t).unstarted(() -> {
                        for (int i = 0; i < IOS_PER_THREAD; i++) {
                            s.submit(ReqOp.READ, 0, 512, null, cb, (long) me * IOS_PER_THREAD + i);
                            done.incrementAndGet(me);
                        }
                    });
                    threads.add(th);
                }
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            for (int i = 0; i < nrThreads; i++) {
                assertThat(done.get(i)).as("thread %d", i).isEqualTo(IOS_PER_THREAD);
            }
            int expected = nrThreads * IOS_PER_THREAD;
            while (cb.total.get() < expected) {
                Thread.sleep(1);   // the last completions are in flight; the preemptive timeout bounds this
            }
            assertThat(cb.eachExactlyOnce(expected)).isTrue();
            assertThat(cb.status(BlkStatus.OK)).isEqualTo(expected);
            assertThat(set.tags(0).bitmapTags.dump().wsActive()).isZero();
            for (RequestQueue q : qs) {
                assertThat(q.allocatedRequests()).isZero();
                q.close();
            }
            set.close();
        } finally {
            completer.shutdownNow();
        }
    }
}
