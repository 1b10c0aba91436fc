package io.hostwide.cli.util;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several producers against the one consumer, more threads than this machine has cores so producers are
 * preempted between claiming a cell and publishing it. Legal outcomes: each producer's values come out in the
 * order it offered them, every value exactly once, and a refusal only when the ring really holds its capacity.
 *
 * <p>Not Lincheck: the ring is not linearizable, on purpose (Vyukov's design). A poll may answer empty while a
 * later producer's offer has returned, because an earlier cell is claimed and not yet published; the jobs rely
 * only on that producer publishing and then waking them, which the per-producer order and exactly-once checks
 * here cover.
 */
class MpscIntRingStressTest {

    private static final int PRODUCERS = 3;
    private static final int PER_PRODUCER = 50_000;    // under 2^24: the producer is the value's top byte

    /** Producers retry refused offers: per-producer FIFO and exactly-once, through a ring that is often full. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void perProducerOrderAndExactlyOnceWithRefusalsRetried() throws Exception {
        for (int capacity : new int[] {4, 64}) {
            MpscIntRing ring = new MpscIntRing(capacity);
            AtomicInteger refusals = new AtomicInteger();
            run(ring, (p, v) -> {
                while (!ring.offer(v)) {
                    refusals.incrementAndGet();
                    Thread.yield();   // more threads than cores: let the others run
                }
            }, null);
            assertThat(ring.isEmpty()).isTrue();
            if (capacity == 4) {
                assertThat(refusals.get()).as("a 4-cell ring under 3 producers is found full").isPositive();
            }
        }
    }

    /**
     * The jobs' use: at most capacity values outstanding (a permit is taken before an offer and given back after
     * the consumer has taken a value), so a refusal would be a false "full": none may happen.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void neverRefusesWhileAtMostCapacityValuesAreOutstanding() throws Exception {
        for (int capacity : new int[] {4, 16}) {
            MpscIntRing ring = new MpscIntRing(capacity);
            AtomicInteger permits = new AtomicInteger(ring.capacity());
            AtomicInteger falseFull = new AtomicInteger();
            run(ring, (p, v) -> {
                while (true) {
                    int n = permits.get();
                    if (n > 0 && permits.compareAndSet(n, n - 1)) {
                        break;
                    }
                    Thread.yield();   // more threads than cores: let the others run
                }
                if (!ring.offer(v)) {
                    falseFull.incrementAndGet();
                    throw new AssertionError("refused with a permit held: value " + v);
                }
            }, permits);
            assertThat(falseFull.get()).isZero();
            assertThat(permits.get()).isEqualTo(ring.capacity());
        }
    }

    /**
     * The jobs' sleep/wake handshake over the ring: the consumer sets {@code waiting}, re-checks the ring and parks;
     * a producer offers, then reads {@code waiting} and unparks. Lost wake-up: the consumer parks although a value
     * went in and no producer saw it waiting, so the park runs to its timeout. One producer at a time, each value
     * offered only once the consumer has taken the previous one, so every value is a fresh race with a park.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aValueOfferedWhileTheConsumerGoesToSleepAlwaysWakesIt() throws Exception {
        MpscIntRing ring = new MpscIntRing(4);
        Handshake h = new Handshake(ring);
        int values = 200_000;
        AtomicInteger taken = new AtomicInteger();
        Thread consumer = Thread.ofPlatform().name("ring-consumer").start(() -> {
            for (int i = 0; i < values; ) {
                if (ring.poll() >= 0) {
                    taken.set(++i);
                } else {
                    h.sleep();
                }
            }
        });
        for (int i = 0; i < values; i++) {
            h.offer(i);
            while (taken.get() <= i) {
                Thread.onSpinWait();
            }
        }
        consumer.join();
        assertThat(h.lost.get()).as("parks that ran to their timeout with a value in the ring").isZero();
    }

    /** BenchJob's and CopyJob's protocol, as they use the ring (they yield instead of parking when claimed). */
    static final class Handshake {
        static final long PARK_NANOS = TimeUnit.SECONDS.toNanos(5);
        final MpscIntRing ring;
        volatile Thread sleeper;
        volatile boolean waiting;
        final AtomicInteger lost = new AtomicInteger();

        Handshake(MpscIntRing ring) {
            this.ring = ring;
        }

        void offer(int v) {
            ring.offer(v);
            if (waiting) {
                LockSupport.unpark(sleeper);
            }
        }

        void sleep() {
            sleeper = Thread.currentThread();
            waiting = true;
            if (ring.nothingClaimed()) {
                long t0 = System.nanoTime();
                LockSupport.parkNanos(this, PARK_NANOS);
                if (System.nanoTime() - t0 >= PARK_NANOS && !ring.isEmpty()) {
                    lost.incrementAndGet();
                }
            }
            waiting = false;
        }
    }

    interface Offerer {
        void offer(int producer, int value);
    }

    /** Starts the producers, consumes on this thread and checks order and completeness; gives permits back. */
    private static void run(MpscIntRing ring, Offerer offerer, AtomicInteger permits) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> producers = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            int producer = p;
            producers.add(Thread.ofPlatform().name("ring-producer-" + p).start(() -> {
                try {
                    start.await();
                    for (int i = 0; i < PER_PRODUCER; i++) {
                        offerer.offer(producer, producer << 24 | i);
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        int[] next = new int[PRODUCERS];
        long taken = 0;
        start.countDown();
        while (taken < (long) PRODUCERS * PER_PRODUCER) {
            int v = ring.poll();
            if (v < 0) {
                if (failure.get() != null) {
                    break;
                }
                Thread.yield();   // more threads than cores: let the others run
                continue;
            }
            if (permits != null) {
                permits.incrementAndGet();
            }
            int p = v >>> 24;
            int seq = v & 0xFF_FFFF;
            assertThat(p).as("producer of %d", v).isBetween(0, PRODUCERS - 1);
            assertThat(seq).as("producer %d's next value", p).isEqualTo(next[p]);
            next[p]++;
            taken++;
        }
        for (Thread t : producers) {
            t.join();
        }
        assertThat(failure.get()).isNull();
        assertThat(next).containsOnly(PER_PRODUCER);
        assertThat(ring.poll()).isEqualTo(-1);
    }
}
