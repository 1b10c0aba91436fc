package io.hostwide.blk.nullb;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.IoCallback;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.blk.exec.ManualKblockd;
import io.hostwide.blk.exec.ThreadPoolKblockd;
import io.hostwide.blk.stat.RequestQueueSnapshot;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * irqmode=1 completes on the thread that ran queue_rq, at the end of its dispatch batch: several submitters on
 * one hardware queue, requests of several ctxs dispatched by one kblockd queue run, requeues and refusals;
 * every request completes exactly once.
 */
class SoftirqCompletionTest {

    private static final class Once implements IoCallback {
        final ConcurrentHashMap<Long, AtomicInteger> seen = new ConcurrentHashMap<>();
        final AtomicInteger bad = new AtomicInteger();

        @Override
        public void onComplete(long userData, BlkStatus status) {
            if (status != BlkStatus.OK) {
                bad.incrementAndGet();
            }
            seen.computeIfAbsent(userData, k -> new AtomicInteger()).incrementAndGet();
        }

        boolean eachOnce(int n) {
            return seen.size() == n && seen.values().stream().allMatch(c -> c.get() == 1);
        }
    }

    /** A run by kblockd dispatches the requests two submitters left in their ctxs; its batch end completes all. */
    @Test
    void oneQueueRunCompletesTheRequestsOfEveryCtx() {
        ManualKblockd kb = new ManualKblockd();
        NullDevice dev = NullDevice.create(NullConfig.parse("irqmode=1,requeue=3,submit_queues=1,size=1", "sq"), kb);
        SubmitHandle a = dev.openHandle();   // ctx 0
        SubmitHandle b = dev.openHandle();   // ctx 1, on the same (only) hardware queue
        assertThat(dev.queue().nrCtx()).isGreaterThanOrEqualTo(2);
        assertThat(dev.queue().ctx(0).hctx()).isSameAs(dev.queue().ctx(1).hctx());
        Once cb = new Once();
        ByteBuffer buf = ByteBuffer.allocate(512);
        for (int i = 0; i < 30; i++) {
            (i % 2 == 0 ? a : b).read(0, 512, buf, cb, i);
        }
        kb.advance(50_000_000L);
        assertThat(cb.eachOnce(30)).isTrue();
        assertThat(cb.bad.get()).isZero();
        RequestQueueSnapshot s = dev.queue().snapshot();
        assertThat(s.completed()).isEqualTo(30);
        assertThat(s.queued()).isEqualTo(30);
        assertThat(s.inFlight()).isZero();
        dev.close();
    }

    /**
     * A dispatch batch whose last request is requeued by the driver still completes the ones before it: they were
     * deferred on the submitting thread, which here exits and never dispatches again.
     */
    @Test
    void aBatchEndingOnARequeuedRequestCompletesTheEarlierOnes() throws Exception {
        ManualKblockd kb = new ManualKblockd();
        // requeue=2: the 2nd request queue_rq sees is requeued by the driver (null_queue_rq returns OK).
        NullDevice dev = NullDevice.create(NullConfig.parse("irqmode=1,requeue=2,submit_queues=1,size=1", "rq"), kb);
        Once cb = new Once();
        Thread t = new Thread(() -> {
            SubmitHandle h = dev.openHandle();
            ByteBuffer buf = ByteBuffer.allocate(512);
            h.startPlug();
            h.read(0, 512, buf, cb, 0);
            h.read(0, 512, buf, cb, 1);
            h.finishPlug();
        });
        t.start();
        t.join(10_000);
        assertThat(cb.seen).as("the first request completed at the batch end, on the submitter").containsKey(0L);
        kb.advance(50_000_000L);   // the requeued one goes out again from a kblockd run on this thread
        assertThat(cb.eachOnce(2)).isTrue();
        assertThat(cb.bad.get()).isZero();
        dev.close();
    }

    @ParameterizedTest(name = "submit_queues={0} requeue={1} shared_tag_bitmap={2}")
    @CsvSource({"1, 0, 0", "1, 7, 0", "2, 0, 1", "2, 5, 1", "1, 5, 1"})
    void threadsOnOneHardwareQueueCompleteEveryRequestOnce(int queues, int requeue, int sharedTagBitmap)
            throws Exception {
        int threads = 4;
        int perThread = 3000;
        try (ThreadPoolKblockd kb = new ThreadPoolKblockd("softirq-test", 2)) {
            NullDevice dev = NullDevice.create(NullConfig.parse("irqmode=1,size=1,hw_queue_depth=16,submit_queues="
                    + queues + ",requeue=" + requeue + ",shared_tag_bitmap=" + sharedTagBitmap, "mt"), kb);
            Once cb = new Once();
            Thread[] ts = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                SubmitHandle h = dev.openHandle();
                long base = (long) t * perThread;
                ts[t] = new Thread(() -> {
                    ByteBuffer buf = ByteBuffer.allocate(512);
                    for (int i = 0; i < perThread; i++) {
                        if (i % 8 == 0) {
                            h.startPlug();
                        }
                        h.read(0, 512, buf, cb, base + i);
                        if (i % 8 == 5) {
                            h.finishPlug();
                        }
                    }
                    h.finishPlug();
                });
                ts[t].start();
            }
            for (Thread t : ts) {
                t.join(60_000);
            }
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (cb.seen.size() < threads * perThread && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(cb.eachOnce(threads * perThread)).isTrue();
            assertThat(cb.bad.get()).isZero();
            assertThat(dev.queue().snapshot().completed()).isEqualTo((long) threads * perThread);
            dev.close();
        }
    }
}
