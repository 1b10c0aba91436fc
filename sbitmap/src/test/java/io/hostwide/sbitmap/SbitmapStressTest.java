package io.hostwide.sbitmap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * jcstress-style races with legal-outcome checks, for both implementations.
 * Lincheck ({@link SbitmapLincheckTest}) cannot drive blocking waits, and its
 * linearizability check does not fit a multi-word map, so these cover the
 * no-lost-wake-up handshake and multi-word safety by repetition instead.
 */
class SbitmapStressTest {

    private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    static Function<SbitmapConfig, SbitmapQueue> factory(String impl) {
        return "reference".equals(impl) ? SynchronizedBitsetQueue::new : ShardedSbitmapQueue::new;
    }

    /**
     * One bit, held. Actor 1 waits for a bit; actor 2 frees it, racing with the
     * waiter's registration. Legal outcome: the waiter gets the bit, every round.
     * Forbidden: a timeout (the free slipped between the waiter's last try and its
     * registration and nobody woke it).
     */
    @ParameterizedTest
    @ValueSource(strings = {"reference", "sharded"})
    void aFreeRacingABlockingWaitersRegistrationIsNeverLost(String impl) throws Exception {
        SbitmapQueue q = factory(impl).apply(SbitmapConfig.of(1, 2));
        CyclicBarrier barrier = new CyclicBarrier(2);
        int rounds = 3000;
        AtomicInteger lost = new AtomicInteger();
        Thread waiter = Thread.ofPlatform().start(() -> {
            WaitIndex wi = new WaitIndex();
            try {
                for (int r = 0; r < rounds; r++) {
                    barrier.await();
                    int bit = q.getBlocking(0, wi, LIMIT_NANOS);
                    if (bit != 0) {
                        lost.incrementAndGet();
                        return;
                    }
                    barrier.await();
                }
            } catch (Exception e) {
                lost.incrementAndGet();
            }
        });
        for (int r = 0; r < rounds && lost.get() == 0; r++) {
            assertThat(q.get(1)).isZero(); // hold the only bit
            barrier.await(LIMIT_NANOS, TimeUnit.NANOSECONDS);
            q.clear(0, 1);
            awaitOrFail(barrier, "the blocking waiter never got the freed bit: lost wake-up"); // it has it now
            q.clear(0, 1);
        }
        waiter.join(TimeUnit.NANOSECONDS.toMillis(LIMIT_NANOS));
        assertThat(lost.get()).as("rounds where the waiter missed the free").isZero();
        assertThat(q.dump().wsActive()).isZero();
    }

    private static void awaitOrFail(CyclicBarrier barrier, String what) throws Exception {
        try {
            barrier.await(2 * LIMIT_NANOS, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(what, e);
        }
    }

    /** The same race for a callback waiter that registers and then re-tries. */
    @ParameterizedTest
    @ValueSource(strings = {"reference", "sharded"})
    void aFreeRacingACallbackRegistrationIsNeverLost(String impl) throws Exception {
        SbitmapQueue q = factory(impl).apply(SbitmapConfig.of(1, 2));
        CyclicBarrier barrier = new CyclicBarrier(2);
        int rounds = 3000;
        AtomicInteger failures = new AtomicInteger();
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                for (int r = 0; r < rounds; r++) {
                    barrier.await();
                    CountDownLatch got = new CountDownLatch(1);
                    WaitEntry e = new WaitEntry() {
                        @Override
                        protected void wake() {
                            if (q.get(0) == 0) {
                                got.countDown();
                            }
                        }
                    };
                    if (q.get(0) == 0) {
                        got.countDown();
                    } else {
                        q.addWaitQueue(e, new WaitIndex());
                        if (q.get(0) == 0) {
                            q.removeWaitQueue(e);
                            got.countDown();
                        }
                    }
                    if (!got.await(LIMIT_NANOS, TimeUnit.NANOSECONDS)) {
                        failures.incrementAndGet();
                        return;
                    }
                    q.removeWaitQueue(e);
                    barrier.await();
                }
            } catch (Exception ex) {
                failures.incrementAndGet();
            }
        });
        for (int r = 0; r < rounds && failures.get() == 0; r++) {
            assertThat(q.get(1)).isZero();
            barrier.await(LIMIT_NANOS, TimeUnit.NANOSECONDS);
            q.clear(0, 1);
            awaitOrFail(barrier, "the callback waiter never got the freed bit: lost wake-up");
            q.clear(0, 1);
        }
        waiter.join(TimeUnit.NANOSECONDS.toMillis(LIMIT_NANOS));
        assertThat(failures.get()).as("rounds where the callback waiter missed the free").isZero();
        assertThat(q.busy()).isZero();
    }

    /**
     * More demand than bits over a multi-word map (16 bits, 4 words of 4, batch
     * 2): every thread loops: wait for one bit, grab up to three more
     * without waiting, free them all. Legal: every wait
     * succeeds, no bit is held twice, and the map ends empty with no waiter.
     */
    @ParameterizedTest
    @ValueSource(strings = {"reference", "sharded"})
    void oversubscribedWaitersAllMakeProgress(String impl) throws Exception {
        int threads = 6;
        int iterations = 2000;
        SbitmapQueue q = factory(impl).apply(SbitmapConfig.of(16, threads));
        AtomicIntegerArray owner = new AtomicIntegerArray(16);
        AtomicReference<String> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t;
            workers.add(Thread.ofPlatform().start(() -> {
                WaitIndex wi = new WaitIndex();
                int[] mine = new int[4];
                try {
                    for (int i = 0; i < iterations && failure.get() == null; i++) {
                        int n = 1 + (i % mine.length);
                        for (int k = 0; k < n; k++) {
                            // Sleep only while holding nothing (no hold-and-wait deadlock); extras are best effort.
                            int bit = k == 0 ? q.getBlocking(me, wi, LIMIT_NANOS) : q.get(me);
                            if (bit < 0) {
                                if (k == 0) {
                                    failure.compareAndSet(null, "thread " + me + " timed out: lost wake-up");
                                }
                                n = k;
                                break;
                            }
                            if (!owner.compareAndSet(bit, 0, me + 1)) {
                                failure.compareAndSet(null, "bit " + bit + " held twice");
                            }
                            mine[k] = bit;
                        }
                        for (int k = 0; k < n; k++) {
                            owner.set(mine[k], 0);
                            q.clear(mine[k], me);
                        }
                    }
                } catch (InterruptedException e) {
                    failure.compareAndSet(null, "interrupted");
                }
            }));
        }
        for (Thread w : workers) {
            w.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertThat(failure.get()).isNull();
        assertThat(q.busy()).isZero();
        assertThat(q.dump().wsActive()).isZero();
    }
}
