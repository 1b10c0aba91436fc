package io.hostwide.blk;

import io.hostwide.blk.exec.ThreadPoolKblockd;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tags and budgets exhausted on purpose (depth 6 for three queues, three hctxs,
 * budget 3 per queue, injected RESOURCE / DEV_RESOURCE / requeues): every submitted
 * request must still complete exactly once — a lost wake-up shows up as a hang.
 */
class NoLostWakeupTest {
    private static final int QUEUES = 3;
    private static final int THREADS_PER_QUEUE = 2;
    private static final int IOS_PER_THREAD = 300;

    @ParameterizedTest(name = "hostTagset={0} scheduler={1} budget={2}")
    @CsvSource({
        "false, none, 0", "true, none, 0", "false, none, 3", "true, none, 3",
        "false, test-fifo, 0", "true, test-fifo, 0", "false, test-fifo, 3", "true, test-fifo, 3",
    })
    void everyRequestCompletes(boolean hostTagset, String scheduler, int budget) throws Exception {
        FifoTestScheduler.register();
        ScheduledExecutorService completer = Executors.newScheduledThreadPool(2);
        LatencyDriver drv = new LatencyDriver(completer, budget, 17, 11, 23);
        int flags = hostTagset ? TagSetFlags.TAG_HCTX_SHARED : 0;
        try (ThreadPoolKblockd kb = new ThreadPoolKblockd("nlw", 2)) {
            TagSet set = new TagSet(new TagSetConfig(3, 6, 0, 0, flags, 6), drv, kb);
            Counting cb = new Counting();
            List<RequestQueue> qs = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int qi = 0; qi < QUEUES; qi++) {
                RequestQueue q = set.addQueue("q" + qi);
                q.setScheduler(scheduler);
                qs.add(q);
                for (int t = 0; t < THREADS_PER_QUEUE; t++) {
                    Submitter s = q.submitter((qi + t * 3) % q.nrCtx());
                    long base = ((long) qi * THREADS_PER_QUEUE + t) * IOS_PER_THREAD;
                    threads.add(new Thread(() -> {
                        for (int i = 0; i < IOS_PER_THREAD; i++) {
                            if (i % 16 == 0) {
                                s.startPlug();
                            }
                            s.submit(ReqOp.READ, 0, 512, null, cb, base + i);
                            if (i % 16 == 7) {
                                s.finishPlug();
                            }
                        }
                        s.finishPlug();
                    }));
                }
            }
            threads.forEach(Thread::start);
            int expected = QUEUES * THREADS_PER_QUEUE * IOS_PER_THREAD;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (cb.total.get() < expected && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            for (Thread t : threads) {
                t.join(1000);
            }
            assertThat(cb.total.get()).as("completed of %d (diagnostics: %s)", expected, diag(set, qs)).isEqualTo(expected);
            assertThat(cb.eachExactlyOnce(expected)).isTrue();
            assertThat(cb.status(BlkStatus.OK)).isEqualTo(expected);
            assertThat(drv.resources.get() + drv.devResources.get() + drv.requeues.get()).isPositive();
            for (RequestQueue q : qs) {
                assertThat(q.allocatedRequests()).isZero();
                q.close();
            }
            set.close();
        } finally {
            completer.shutdownNow();
        }
    }

    private static String diag(TagSet set, List<RequestQueue> qs) {
        StringBuilder sb = new StringBuilder(set.snapshot().toString());
        for (RequestQueue q : qs) {
            sb.append('\n').append(q.snapshot());
        }
        return sb.toString();
    }
}
