package io.hostwide.sbitmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The one contract suite every {@link SbitmapQueue} runs: allocation (inherited
 * from {@link AllocationContract}) plus waiting and waking (digest §1.6–§1.7)
 * here. Subclasses only name the implementation. A lost wake-up shows as a
 * waiter that never gets a bit: every wait here is bounded, and running out of
 * time fails the test instead of hanging it.
 */
abstract class SbitmapQueueContract extends AllocationContract {

    static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(20);

    /** Polls {@code done} until it holds or the limit passes; returns whether it held. */
    static boolean await(BooleanSupplier done, long limitNanos) {
        long deadline = System.nanoTime() + limitNanos;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return true;
    }

    /**
     * A full map, {@code waiters} waiters registered, then the held bits freed one
     * by one. Each waiter that gets a bit counts itself and hands the bit back to
     * be freed again, as a completing request would, so frees keep flowing while
     * anyone waits. Every waiter must get a bit.
     */
    private void sweep(int depth, int waiters, boolean callbacks) throws InterruptedException {
        SbitmapQueue q = create(SbitmapConfig.of(depth, 4));
        Queue<Integer> toFree = new ConcurrentLinkedQueue<>(fill(q, 4));
        assertThat(toFree).hasSize(depth);
        AtomicInteger got = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        List<Grabber> grabbers = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            int hint = i % 4;
            if (callbacks) {
                Grabber g = new Grabber(q, hint, got, toFree);
                grabbers.add(g);
                g.attempt();
            } else {
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        int bit = q.getBlocking(hint, new WaitIndex(), LIMIT_NANOS);
                        if (bit < 0) {
                            failure.compareAndSet(null, new AssertionError("waiter timed out: lost wake-up"));
                            return;
                        }
                        got.incrementAndGet();
                        toFree.add(bit);
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }));
            }
        }
        assertThat(await(() -> q.dump().wsActive() == waiters, LIMIT_NANOS))
                .as("depth %d: all %d waiters registered", depth, waiters).isTrue();
        boolean allServed = await(() -> {
            Integer bit = toFree.poll();
            if (bit != null) {
                q.clear(bit, 0);
            }
            return got.get() == waiters;
        }, LIMIT_NANOS);
        for (Thread t : threads) {
            t.join(TimeUnit.NANOSECONDS.toMillis(LIMIT_NANOS));
        }
        assertThat(failure.get()).isNull();
        assertThat(allServed).as("depth %d, %s waiters: %d of %d got a bit (lost wake-up)", depth,
                callbacks ? "callback" : "blocking", got.get(), waiters).isTrue();
        for (Integer bit; (bit = toFree.poll()) != null; ) {
            q.clear(bit, 0);
        }
        assertThat(q.busy()).isZero();
        assertThat(q.dump().wsActive()).isZero();
    }

    @Test
    void blockingWaitersAreAllServedAtEveryDepthFrom1To64() throws InterruptedException {
        for (int depth = 1; depth <= 64; depth++) {
            sweep(depth, depth + 3, false);
        }
    }

    @Test
    void callbackWaitersAreAllServedAtEveryDepthFrom1To64() throws InterruptedException {
        for (int depth = 1; depth <= 64; depth++) {
            sweep(depth, depth + 3, true);
        }
    }

    @Test
    void aTimedWaitOnAFullMapTimesOutAndLeavesNoWaiter() throws InterruptedException {
        SbitmapQueue q = create(SbitmapConfig.of(8, 1));
        fill(q, 1);
        assertThat(q.getBlocking(0, new WaitIndex(), TimeUnit.MILLISECONDS.toNanos(20))).isEqualTo(-1);
        assertThat(q.getBlocking(0, new WaitIndex(), 0)).isEqualTo(-1);
        assertThat(q.dump().wsActive()).isZero();
    }

    @Test
    void anInterruptedWaiterThrowsAndLeavesNoWaiter() throws Exception {
        SbitmapQueue q = create(SbitmapConfig.of(8, 1));
        fill(q, 1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                q.getBlocking(0, new WaitIndex());
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        assertThat(await(() -> q.dump().wsActive() == 1, LIMIT_NANOS)).isTrue();
        t.interrupt();
        t.join(TimeUnit.NANOSECONDS.toMillis(LIMIT_NANOS));
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(q.dump().wsActive()).isZero();
        assertThat(q.busy()).isEqualTo(8);
    }

    @Test
    void wakeAllWakesBlockingAndCallbackWaiters() throws Exception {
        SbitmapQueue q = create(SbitmapConfig.of(16, 1));
        fill(q, 1);
        AtomicInteger fired = new AtomicInteger();
        WaitIndex wi = new WaitIndex();
        List<WaitEntry> entries = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            WaitEntry e = new WaitEntry() {
                @Override
                protected void wake() {
                    fired.incrementAndGet();
                }
            };
            entries.add(e);
            assertThat(q.addWaitQueue(e, wi)).isTrue();
        }
        AtomicInteger returned = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            Thread.ofVirtual().start(() -> {
                try {
                    q.getBlocking(0, new WaitIndex(), LIMIT_NANOS);
                    returned.incrementAndGet();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            });
        }
        assertThat(await(() -> q.dump().wsActive() == 13, LIMIT_NANOS)).isTrue();
        assertThat(q.dump().ws().stream().mapToInt(Integer::intValue).sum()).isEqualTo(13);
        q.wakeAll();
        assertThat(fired.get()).isEqualTo(10);
        assertThat(entries).noneMatch(WaitEntry::isQueued);
        // Woken sleepers find the map still full and go back to sleep: no bit appears from nowhere.
        assertThat(await(() -> q.dump().wsActive() == 3, LIMIT_NANOS)).isTrue();
        assertThat(returned.get()).isZero();
        for (int i = 0; i < 16; i++) {
            q.clear(i, 0);
        }
        assertThat(done.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(returned.get()).isEqualTo(3);
    }

    @Test
    void aCallbackEntryIsQueuedOnceAndCanBeRemovedUntilItFires() {
        SbitmapQueue q = create(SbitmapConfig.of(8, 1));
        List<Integer> held = fill(q, 1);
        AtomicInteger fired = new AtomicInteger();
        WaitEntry e = new WaitEntry() {
            @Override
            protected void wake() {
                assertThat(isQueued()).isFalse(); // removed before its callback runs
                fired.incrementAndGet();
            }
        };
        WaitIndex wi = new WaitIndex();
        assertThat(q.addWaitQueue(e, wi)).isTrue();
        assertThat(q.addWaitQueue(e, wi)).isFalse();
        assertThat(e.isQueued()).isTrue();
        assertThat(q.dump().wsActive()).isEqualTo(1);
        assertThat(q.removeWaitQueue(e)).isTrue();
        assertThat(q.removeWaitQueue(e)).isFalse();
        assertThat(q.dump().wsActive()).isZero();

        assertThat(q.addWaitQueue(e, wi)).isTrue();
        q.clear(held.get(0), 0); // depth 8: batch 1, so one free fires it
        assertThat(fired.get()).isEqualTo(1);
        assertThat(e.isQueued()).isFalse();
        assertThat(q.removeWaitQueue(e)).isFalse();
        assertThat(q.dump().wsActive()).isZero();
    }

    /**
     * The open-coded wait loop (blk_mq_get_tag's): a woken sleeper that cannot use
     * its wake-up hands it to the next exclusive waiter, exactly once. Single
     * thread: the sleepers are only linked and woken, never parked.
     */
    @Test
    void aWokenSleeperThatCannotUseTheWakeUpPassesItOnOnce() {
        SbitmapQueue q = create(SbitmapConfig.of(8, 1)); // batch 1
        List<Integer> held = fill(q, 1);
        Sleeper first = new Sleeper();
        Sleeper second = new Sleeper();
        q.prepareToWait(first, new WaitIndex()); // both on queue 0, first ahead
        q.prepareToWait(second, new WaitIndex());
        assertThat(q.dump().wsActive()).isEqualTo(2);
        assertThatThrownBy(() -> q.passWakeOn(first)).isInstanceOf(IllegalStateException.class);

        q.clear(held.get(0), 0);
        assertThat(first.isWoken()).isTrue();
        assertThat(second.isWoken()).isFalse();
        assertThat(first.await()).isTrue();
        assertThat(q.passWakeOn(first)).isTrue();
        assertThat(second.isWoken()).isTrue();
        assertThat(q.dump().wsActive()).isZero();
        assertThat(q.passWakeOn(first)).as("a wake-up is passed on once").isFalse();

        // finishWait after a taken wake-up has nothing to unlink and passes nothing on.
        assertThat(second.await()).isTrue();
        Sleeper third = new Sleeper();
        q.prepareToWait(third, new WaitIndex());
        q.finishWait(second);
        assertThat(third.isWoken()).isFalse();
        q.finishWait(third); // still linked: just unlinked
        assertThat(q.dump().wsActive()).isZero();
        assertThat(third.isWoken()).isFalse();
    }

    @Test
    void aWakeUpNotTakenFromAwaitIsPassedOnByFinishWait() {
        SbitmapQueue q = create(SbitmapConfig.of(8, 1)); // batch 1
        List<Integer> held = fill(q, 1);
        Sleeper first = new Sleeper();
        Sleeper second = new Sleeper();
        q.prepareToWait(first, new WaitIndex());
        q.prepareToWait(second, new WaitIndex());
        q.clear(held.get(0), 0);
        assertThat(first.isWoken()).isTrue();
        // first got a bit on its own (its re-try after prepare): the wake-up goes to second.
        q.finishWait(first);
        assertThat(second.isWoken()).isTrue();
        assertThat(q.dump().wsActive()).isZero();
        // A sleeper never prepared has nothing to unlink or pass on.
        Sleeper third = new Sleeper();
        q.prepareToWait(third, new WaitIndex());
        q.finishWait(new Sleeper());
        assertThat(third.isWoken()).isFalse();
        q.finishWait(third);
        assertThat(q.dump().wsActive()).isZero();
    }

    @Test
    void aWakeUpFromWakeAllIsNotPassedOn() {
        SbitmapQueue q = create(SbitmapConfig.of(8, 1));
        fill(q, 1);
        Sleeper first = new Sleeper();
        q.prepareToWait(first, new WaitIndex());
        q.wakeAll();
        assertThat(first.await()).isTrue();
        Sleeper second = new Sleeper();
        q.prepareToWait(second, new WaitIndex());
        assertThat(q.passWakeOn(first)).isFalse();
        assertThat(second.isWoken()).isFalse();
        q.finishWait(second);
        assertThat(q.dump().wsActive()).isZero();
    }

    /**
     * Waiters that all fail a check of their own and go back to wait cannot hand
     * one wake-up round forever: the chain stops within ws_active + 8 hops.
     */
    @Test
    void aWakeUpPassedRoundWaitersThatAllDeclineStops() {
        SbitmapQueue q = create(SbitmapConfig.of(8, 1)); // batch 1
        List<Integer> held = fill(q, 1);
        List<Sleeper> sleepers = new ArrayList<>();
        WaitIndex wi = new WaitIndex();
        for (int i = 0; i < 3; i++) {
            Sleeper s = new Sleeper();
            sleepers.add(s);
            q.prepareToWait(s, wi);
        }
        q.clear(held.get(0), 0);
        int passes = 0;
        for (;;) {
            Sleeper w = sleepers.stream().filter(Sleeper::isWoken).findFirst().orElseThrow();
            assertThat(w.await()).isTrue();
            if (!q.passWakeOn(w)) {
                q.prepareToWait(w, wi);
                break;
            }
            passes++;
            assertThat(passes).as("hops").isLessThanOrEqualTo(3 + SbitmapQueue.WAIT_QUEUES);
            q.prepareToWait(w, wi); // goes back to wait, as a sleeper failing its own check does
        }
        assertThat(passes).isPositive();
        assertThat(q.dump().wsActive()).isEqualTo(3);
        assertThat(sleepers).noneMatch(Sleeper::isWoken);
    }

    /**
     * blk_mq_get_tag's open-coded loop under contention: 24 threads in 3 groups on
     * 8 bits, each group held to 4 bits by a check of its own that runs before the
     * bitmap (hctx_may_queue), so woken waiters fail it with bits free and pass the
     * wake-up on. Every thread must finish every iteration; a lost wake-up hangs,
     * which the preemptive bound turns into a failure.
     */
    @Test
    void waitersWithAnOwnCheckThatPassUnusableWakeUpsOnAllFinish() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            SbitmapQueue q = create(SbitmapConfig.of(8, 24));
            int groups = 3;
            int limit = 4;
            int iterations = 1000;
            AtomicIntegerArray held = new AtomicIntegerArray(groups);
            AtomicInteger finished = new AtomicInteger();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 24; t++) {
                int hint = t;
                int group = t % groups;
                WaitIndex wi = new WaitIndex();
                threads.add(Thread.ofPlatform().daemon().unstarted(() -> {
                    try {
                        Sleeper me = new Sleeper();
                        for (int i = 0; i < iterations; i++) {
                            int bit = getWithOwnCheck(q, hint, wi, me, held, group, limit);
                            Thread.yield();
                            held.decrementAndGet(group);
                            q.clear(bit, hint);
                        }
                        finished.incrementAndGet();
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            assertThat(failure.get()).isNull();
            assertThat(finished.get()).isEqualTo(24);
            assertThat(q.busy()).isZero();
            assertThat(q.dump().wsActive()).isZero();
        });
    }

    /** One allocation as blk_mq_get_tag makes it: own check first, then the bitmap; exclusive sleeps. */
    private static int getWithOwnCheck(SbitmapQueue q, int hint, WaitIndex wi, Sleeper me,
                                       AtomicIntegerArray held, int group, int limit) {
        boolean woken = false;
        for (;;) {
            int bit = tryWithOwnCheck(q, hint, held, group, limit);
            if (bit >= 0) {
                return bit;
            }
            if (woken && q.busy() < q.depth()) {
                q.passWakeOn(me);
            }
            q.prepareToWait(me, wi);
            bit = tryWithOwnCheck(q, hint, held, group, limit);
            if (bit >= 0) {
                q.finishWait(me);
                return bit;
            }
            assertThat(me.await()).isTrue();
            q.finishWait(me);
            woken = true;
        }
    }

    private static int tryWithOwnCheck(SbitmapQueue q, int hint, AtomicIntegerArray held,
                                       int group, int limit) {
        if (held.incrementAndGet(group) > limit) {
            held.decrementAndGet(group);
            return -1;
        }
        int bit = q.get(hint);
        if (bit < 0) {
            held.decrementAndGet(group);
        }
        return bit;
    }

    /**
     * Callbacks sit at the head of their queue (add_wait_queue) and sleepers at
     * the tail, so a wake-up of one exclusive waiter still fires a callback that
     * registered after the sleeper on the same queue.
     */
    @Test
    void aWakeUpFiresTheCallbacksOfAQueueAsWellAsItsSleeper() throws Exception {
        SbitmapQueue q = create(SbitmapConfig.of(8, 1)); // batch 1
        List<Integer> held = fill(q, 1);
        AtomicInteger bit = new AtomicInteger(-2);
        Thread sleeper = Thread.ofVirtual().start(() -> {
            try {
                bit.set(q.getBlocking(0, new WaitIndex(), LIMIT_NANOS)); // queue 0
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(awaitParked(sleeper)).isTrue();
        AtomicBoolean fired = new AtomicBoolean();
        assertThat(q.addWaitQueue(new WaitEntry() {
            @Override
            protected void wake() {
                fired.set(true);
            }
        }, new WaitIndex())).isTrue(); // queue 0 too
        assertThat(q.dump().ws().get(0)).isEqualTo(2);
        q.clear(held.get(0), 0);
        sleeper.join(TimeUnit.NANOSECONDS.toMillis(LIMIT_NANOS));
        assertThat(fired.get()).isTrue();
        assertThat(bit.get()).isEqualTo(held.get(0));
        assertThat(q.dump().wsActive()).isZero();
    }

    /** Waits until {@code t} sleeps in a timed park, i.e. past its re-try. */
    static boolean awaitParked(Thread t) {
        return await(() -> t.getState() == Thread.State.TIMED_WAITING, LIMIT_NANOS);
    }

    /**
     * A callback waiter as blk-mq's dispatch_wait uses one: on wake it re-tries,
     * and if that fails it re-registers and re-tries once more (no lost wake-up).
     */
    static final class Grabber extends WaitEntry {
        private final SbitmapQueue q;
        private final int hint;
        private final AtomicInteger got;
        private final Queue<Integer> toFree;
        private final WaitIndex waitIndex = new WaitIndex();
        private final AtomicBoolean done = new AtomicBoolean();

        Grabber(SbitmapQueue q, int hint, AtomicInteger got, Queue<Integer> toFree) {
            this.q = q;
            this.hint = hint;
            this.got = got;
            this.toFree = toFree;
        }

        void attempt() {
            if (done.get()) {
                return;
            }
            int bit = q.get(hint);
            if (bit < 0) {
                q.addWaitQueue(this, waitIndex);
                bit = q.get(hint);
                if (bit < 0) {
                    return;
                }
                q.removeWaitQueue(this);
            }
            if (done.compareAndSet(false, true)) {
                got.incrementAndGet();
            }
            toFree.add(bit);
        }

        @Override
        protected void wake() {
            attempt();
        }
    }
}
