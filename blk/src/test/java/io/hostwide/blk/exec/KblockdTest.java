package io.hostwide.blk.exec;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Workqueue semantics both executors keep: queue keeps a pending time, mod moves it, no self-concurrency. */
class KblockdTest {

    @Test
    void queueKeepsPendingTimeModMovesIt() {
        ManualKblockd kb = new ManualKblockd();
        AtomicInteger runs = new AtomicInteger();
        DelayedWork w = kb.newWork("w", runs::incrementAndGet);
        assertThat(w.queue(3_000_000)).isTrue();
        assertThat(w.queue(0)).as("already pending: queue is a no-op").isFalse();
        kb.advance(1_000_000);
        assertThat(runs.get()).isZero();
        w.mod(0);   // modify semantics: pulled forward
        kb.runDue();
        assertThat(runs.get()).isEqualTo(1);
        w.queue(1_000_000);
        w.mod(5_000_000);   // and pushed back
        kb.advance(2_000_000);
        assertThat(runs.get()).isEqualTo(1);
        kb.advance(3_000_000);
        assertThat(runs.get()).isEqualTo(2);
        w.queue(1);
        assertThat(w.cancel()).isTrue();
        kb.advance(10);
        assertThat(runs.get()).isEqualTo(2);
    }

    @Test
    void threadPoolWorkNeverRunsConcurrentlyWithItselfAndRerunsIfQueuedWhileRunning() throws Exception {
        try (ThreadPoolKblockd kb = new ThreadPoolKblockd("t", 3)) {
            AtomicInteger concurrent = new AtomicInteger();
            AtomicInteger maxConcurrent = new AtomicInteger();
            AtomicInteger runs = new AtomicInteger();
            CountDownLatch second = new CountDownLatch(2);
            DelayedWork[] self = new DelayedWork[1];
            self[0] = kb.newWork("w", () -> {
                int c = concurrent.incrementAndGet();
                maxConcurrent.accumulateAndGet(c, Math::max);
                if (runs.incrementAndGet() == 1) {
                    self[0].queue(0);   // queued while running: must run again afterwards
                    try {
                        Thread.sleep(20);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                concurrent.decrementAndGet();
                second.countDown();
            });
            self[0].queue(0);
            assertThat(second.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(maxConcurrent.get()).isEqualTo(1);
            assertThat(runs.get()).isEqualTo(2);
        }
    }

    /**
     * Guards ThreadPoolKblockd's lock-free "already due" path of mod(0): producers publish work and call
     * mod(0) concurrently with the item's runs; every published unit must be consumed by some run, with no
     * further call to wake it (a lost run would leave work behind).
     */
    @Test
    void modNowNeverLosesARun() throws Exception {
        try (ThreadPoolKblockd kb = new ThreadPoolKblockd("m", 2)) {
            java.util.concurrent.atomic.AtomicLong published = new java.util.concurrent.atomic.AtomicLong();
            java.util.concurrent.atomic.AtomicLong consumed = new java.util.concurrent.atomic.AtomicLong();
            DelayedWork w = kb.newWork("w", () -> consumed.set(published.get()));
            int producers = 3;
            int perProducer = 20_000;
            Thread[] ts = new Thread[producers];
            for (int p = 0; p < producers; p++) {
                ts[p] = new Thread(() -> {
                    for (int i = 0; i < perProducer; i++) {
                        published.incrementAndGet();   // the work, published with a volatile RMW
                        w.mod(0);
                    }
                });
                ts[p].start();
            }
            for (Thread t : ts) {
                t.join();
            }
            long total = (long) producers * perProducer;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (consumed.get() != total && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(consumed.get()).as("work consumed after the last mod(0)").isEqualTo(total);
        }
    }
}
