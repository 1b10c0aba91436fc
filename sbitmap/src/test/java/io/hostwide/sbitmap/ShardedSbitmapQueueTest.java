package io.hostwide.sbitmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The real {@link SbitmapQueue}: the contract suite it shares with {@link SynchronizedBitsetQueue} (inherited),
 * plus what only a kernel-faithful sbitmap has and the reference deliberately leaves out: the word layout in the
 * dump, batch gets from one word, round-robin order, and wake-ups batched over eight queues (digest §1.6).
 */
class ShardedSbitmapQueueTest extends SbitmapQueueContract {
    @Override
    SbitmapQueue create(SbitmapConfig config) {
        return new ShardedSbitmapQueue(config);
    }

    @Test
    void declaringASmallMinimumShallowDepthShrinksTheWakeBatch() {
        SbitmapQueue q = create(SbitmapConfig.of(64, 1));
        assertThat(q.wakeBatch()).isEqualTo(8);
        q.setMinShallowDepth(8);
        assertThat(q.wakeBatch()).isEqualTo(1);
    }

    @Test
    void resizeRecomputesTheWakeBatch() {
        SbitmapQueue q = create(SbitmapConfig.of(256, 1));
        assertThat(q.wakeBatch()).isEqualTo(8);
        q.resize(16);
        assertThat(q.wakeBatch()).isEqualTo(2);
        q.resize(4);
        assertThat(q.wakeBatch()).isEqualTo(1);
        q.resize(256);
        assertThat(q.wakeBatch()).isEqualTo(8);
    }

    @Test
    void batchGetTakesBitsOfOneWordAndBatchClearReturnsThem() {
        SbitmapQueue q = create(SbitmapConfig.of(256, 2));
        int[] out = new int[8];
        int n = q.getBatch(8, 0, out);
        assertThat(n).isBetween(1, 8);
        int word = out[0] >>> 6;
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < n; i++) {
            assertThat(out[i] >>> 6).isEqualTo(word);
            assertThat(seen.add(out[i])).isTrue();
        }
        assertThat(q.busy()).isEqualTo(n);
        q.clearBatch(out, n);
        assertThat(q.busy()).isZero();

        BitSet all = new BitSet();
        int total = 0;
        for (int k; (k = q.getBatch(8, total % 2, out)) > 0; total += k) {
            for (int i = 0; i < k; i++) {
                assertThat(all.get(out[i])).isFalse();
                all.set(out[i]);
            }
        }
        assertThat(total).isEqualTo(256);
        assertThat(q.get(0)).isEqualTo(-1);
        int[] scattered = {3, 200, 4, 70, 199, 5, 130};
        q.clearBatch(scattered, scattered.length);
        assertThat(q.busy()).isEqualTo(256 - scattered.length);
        assertThat(new HashSet<>(fill(q, 2))).containsExactlyInAnyOrder(3, 4, 5, 70, 130, 199, 200);
    }

    @Test
    void roundRobinAdvancesStrictlyAndWraps() {
        for (int depth : new int[] {1, 7, 32, 100}) {
            SbitmapQueue q = create(SbitmapConfig.of(depth, 1).withRoundRobin(true));
            int prev = q.get(0);
            q.clear(prev, 0);
            for (int i = 0; i < 3 * depth; i++) {
                int bit = q.get(0);
                assertThat(bit).as("depth %d step %d", depth, i).isEqualTo((prev + 1) % depth);
                q.clear(bit, 0);
                prev = bit;
            }
        }
    }

    @Test
    void roundRobinFillHandsOutAscendingBitsFromTheHint() {
        SbitmapQueue q = create(SbitmapConfig.of(40, 1).withRoundRobin(true));
        int first = q.get(0);
        for (int i = 1; i < 40; i++) {
            assertThat(q.get(0)).isEqualTo((first + i) % 40);
        }
        assertThat(q.get(0)).isEqualTo(-1);
    }

    @Test
    void dumpShowsTheDebugfsFields() {
        SbitmapQueue q = create(SbitmapConfig.of(32, 3));
        q.setMinShallowDepth(16);
        int a = q.get(0);
        q.get(1);
        q.get(2);
        q.clear(a, 0);
        SbitmapDump d = q.dump();
        assertThat(d.depth()).isEqualTo(32);
        assertThat(d.busy()).isEqualTo(2);
        assertThat(d.cleared()).isBetween(0, 1);
        assertThat(d.bitsPerWord()).isEqualTo(8);
        assertThat(d.mapNr()).isEqualTo(4);
        assertThat(d.allocHint()).hasSize(3).allSatisfy(h -> assertThat(h).isBetween(0, 31));
        assertThat(d.allocHint().get(0)).isEqualTo(a); // set to the freed tag
        assertThat(d.wakeBatch()).isEqualTo(2);
        assertThat(d.wakeIndex()).isBetween(0, 7);
        assertThat(d.wsActive()).isZero();
        assertThat(d.ws()).hasSize(8).containsOnly(0);
        assertThat(d.roundRobin()).isFalse();
        assertThat(d.minShallowDepth()).isEqualTo(16);
        assertThat(d.toDebugfsText()).contains("depth=32\n", "busy=2\n", "bits_per_word=8\n", "map_nr=4\n",
                "wake_batch=2\n", "ws_active=0\n", "round_robin=0\n", "min_shallow_depth=16\n");
    }

    @Test
    void shiftCanBeForcedAndCapacityFixesTheWordCount() {
        SbitmapQueue q = create(new SbitmapConfig(20, 100, 3, false, 1));
        SbitmapDump d = q.dump();
        assertThat(d.bitsPerWord()).isEqualTo(8);
        assertThat(d.mapNr()).isEqualTo(3);
        assertThat(fill(q, 1)).hasSize(20);
        q.resize(100);
        assertThat(q.dump().mapNr()).isEqualTo(13);
        assertThat(fill(q, 1)).hasSize(80);
    }

    /**
     * The 2022 shared-tags hang: with 16 sharers each may hold only ceil(64/16) = 4
     * tags, fewer than the default batch of 8, so freeing one sharer's slice never
     * completes a batch. recalculateWakeBatch(16) makes the batch 1.
     */
    @Test
    void sharedUsersAreWokenOnceTheBatchFollowsTheUserCount() throws InterruptedException {
        SbitmapQueue q = create(SbitmapConfig.of(64, 4));
        assertThat(q.wakeBatch()).isEqualTo(8);
        List<Integer> held = fill(q, 4);
        AtomicInteger got = new AtomicInteger();
        List<Thread> waiters = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            waiters.add(Thread.ofVirtual().start(() -> {
                try {
                    if (q.getBlocking(0, new WaitIndex(), LIMIT_NANOS) >= 0) {
                        got.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        for (Thread t : waiters) {
            assertThat(awaitParked(t)).isTrue();
        }
        for (int i = 0; i < 4; i++) {
            q.clear(held.get(i), 0);
        }
        // Four frees are half a batch of 8: nobody is woken.
        assertThat(q.dump().wsActive()).isEqualTo(4);
        assertThat(got.get()).isZero();

        q.recalculateWakeBatch(16);
        assertThat(q.wakeBatch()).isEqualTo(1);
        assertThat(await(() -> got.get() == 4, LIMIT_NANOS)).as("woken after recalculation").isTrue();
        for (Thread t : waiters) {
            t.join();
        }

        // With the batch at 1, a fresh slice of four frees serves four fresh waiters.
        List<Integer> slice = new ArrayList<>(held.subList(4, 8));
        got.set(0);
        waiters.clear();
        for (int i = 0; i < 4; i++) {
            waiters.add(Thread.ofVirtual().start(() -> {
                try {
                    if (q.getBlocking(1, new WaitIndex(), LIMIT_NANOS) >= 0) {
                        got.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        assertThat(await(() -> q.dump().wsActive() == 4, LIMIT_NANOS)).isTrue();
        for (int bit : slice) {
            q.clear(bit, 1);
        }
        assertThat(await(() -> got.get() == 4, LIMIT_NANOS)).as("each free of the slice wakes one").isTrue();
        for (Thread t : waiters) {
            t.join();
        }
        assertThat(q.busy()).isEqualTo(64);
    }

    @Test
    void withoutWaitersAFreeDoesNoWakeUpWork() {
        SbitmapQueue q = create(SbitmapConfig.of(64, 1));
        List<Integer> held = fill(q, 1);
        int before = q.dump().wakeIndex();
        for (int bit : held) {
            q.clear(bit, 0);
        }
        assertThat(q.dump().wakeIndex()).isEqualTo(before);
        assertThat(q.dump().wsActive()).isZero();
    }

    @Test
    void aBatchOfFreesWakesAnExclusiveWaiterAndMovesTheWakeIndexPastItsQueue() throws Exception {
        SbitmapQueue q = create(SbitmapConfig.of(8, 1)); // batch 1
        List<Integer> held = fill(q, 1);
        int before = q.dump().wakeIndex();
        WaitIndex wi = new WaitIndex(); // first use: queue 0
        AtomicInteger bit = new AtomicInteger(-2);
        Thread t = Thread.ofVirtual().start(() -> {
            try {
                bit.set(q.getBlocking(0, wi, LIMIT_NANOS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(awaitParked(t)).isTrue();
        q.clear(held.get(3), 0);
        t.join(TimeUnit.NANOSECONDS.toMillis(LIMIT_NANOS));
        assertThat(bit.get()).isEqualTo(held.get(3));
        assertThat(q.dump().wakeIndex()).isEqualTo((before + 1) % 8);
        assertThatThrownBy(() -> q.addWaitQueue(null, new WaitIndex())).isInstanceOf(NullPointerException.class);
    }
}
