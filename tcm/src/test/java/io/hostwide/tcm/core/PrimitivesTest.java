package io.hostwide.tcm.core;

import io.hostwide.tcm.lu.RangeLock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The session command pool (MPMC ring) and the striped range lock. */
class PrimitivesTest {

    @Test
    void poolIsBoundedAndFifo() {
        CommandPool p = new CommandPool(4);
        CoreCommand[] cs = new CoreCommand[5];
        for (int i = 0; i < 5; i++) {
            cs[i] = new CoreCommand(null);
        }
        for (int i = 0; i < 4; i++) {
            assertThat(p.offer(cs[i])).isTrue();
        }
        assertThat(p.offer(cs[4])).isFalse();
        for (int i = 0; i < 4; i++) {
            assertThat(p.poll()).isSameAs(cs[i]);
        }
        assertThat(p.poll()).isNull();
    }

    /**
     * Threads take and return commands concurrently: no command is ever held by two threads, and every command is
     * either back in the pool or was refused by an offer (left to the GC). Refusals happen when a consumer is
     * descheduled between claiming a slot and releasing it and producers wrap around to that slot (Vyukov's ring);
     * on a loaded machine that can be many, which costs allocations later, never correctness.
     */
    @Test
    void poolNeverHandsOneCommandToTwoThreads() throws Exception {
        CommandPool p = new CommandPool(128);
        List<CoreCommand> all = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            CoreCommand c = new CoreCommand(null);
            all.add(c);
            p.offer(c);
        }
        Set<CoreCommand> held = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
        AtomicInteger duplicates = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 50_000; i++) {
                    CoreCommand c = p.poll();
                    if (c == null) {
                        continue;
                    }
                    if (!held.add(c)) {
                        duplicates.incrementAndGet();
                    }
                    held.remove(c);
                    if (!p.offer(c)) {
                        refused.incrementAndGet();
                    }
                }
            });
            ts.add(th);
            th.start();
        }
        go.countDown();
        for (Thread th : ts) {
            th.join(60_000);
        }
        assertThat(duplicates.get()).isZero();
        Set<CoreCommand> back = Collections.newSetFromMap(new IdentityHashMap<>());
        for (CoreCommand c; (c = p.poll()) != null; ) {
            back.add(c);
        }
        assertThat(back.size() + refused.get()).isEqualTo(64);
        assertThat(all).containsAll(back);
    }

    @Test
    void rangeMasksCoverTheRange() {
        assertThat(RangeLock.mask(0, 0)).isZero();
        assertThat(RangeLock.mask(0, 1)).isEqualTo(1L);
        assertThat(RangeLock.mask(127, 2)).isEqualTo(3L); // crosses a 128-block stripe boundary
        assertThat(RangeLock.mask(64L * 128, 1)).isEqualTo(1L); // wraps onto stripe 0
        assertThat(RangeLock.mask(0, 64L * 128)).isEqualTo(-1L);
        assertThat(RangeLock.mask(63L * 128, 256)).isEqualTo(1L << 63 | 1L);
    }

    @Test
    void exclusiveExcludesSharedOnOverlappingStripes() throws Exception {
        RangeLock lock = new RangeLock();
        long[] mine = RangeLock.newStamps();
        long mask = RangeLock.mask(0, 200);
        lock.lockExclusive(mask, mine);
        AtomicInteger entered = new AtomicInteger();
        Thread other = new Thread(() -> {
            long[] s = RangeLock.newStamps();
            long m = RangeLock.mask(150, 1);
            lock.lockShared(m, s);
            entered.incrementAndGet();
            lock.unlockShared(m, s);
        });
        other.start();
        // A positive signal, not a window: the other thread parks inside StampedLock.readLock (WAITING) only once it
        // reached the stripe and found it held; before that point the assertion below would prove nothing.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (other.getState() != Thread.State.WAITING) {
            assertThat(other.isAlive()).as("the shared locker got through the exclusive hold").isTrue();
            assertThat(System.nanoTime() - deadline).as("the shared locker never blocked").isNegative();
            Thread.onSpinWait();
        }
        assertThat(entered.get()).isZero(); // blocked behind the exclusive holder
        lock.unlockExclusive(mask, mine);
        other.join(10_000);
        assertThat(entered.get()).isEqualTo(1);
        long[] a = RangeLock.newStamps();
        long[] b = RangeLock.newStamps();
        lock.lockShared(RangeLock.mask(0, 10), a); // shared holders coexist
        lock.lockShared(RangeLock.mask(5, 10), b);
        lock.unlockShared(RangeLock.mask(0, 10), a);
        lock.unlockShared(RangeLock.mask(5, 10), b);
    }
}
