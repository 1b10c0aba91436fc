package io.hostwide.sbitmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The allocation half of the contract every {@link SbitmapQueue} keeps; the
 * waiting half is {@link SbitmapQueueContract}, which extends this, and which
 * each implementation's test extends.
 */
abstract class AllocationContract {

    abstract SbitmapQueue create(SbitmapConfig config);

    /** Claims bits until the map says full, rotating over the hint slots. */
    static List<Integer> fill(SbitmapQueue q, int nrHints) {
        List<Integer> got = new ArrayList<>();
        for (int i = 0; ; i++) {
            int bit = q.get(i % nrHints);
            if (bit < 0) {
                return got;
            }
            got.add(bit);
        }
    }

    @Test
    void fillsExactlyTheDepthWithDistinctBitsThenReportsFull() {
        for (int depth : new int[] {1, 2, 3, 5, 31, 32, 64, 100, 256, 1000}) {
            SbitmapQueue q = create(SbitmapConfig.of(depth, 4));
            List<Integer> got = fill(q, 4);
            assertThat(got).as("depth %d", depth).hasSize(depth).doesNotHaveDuplicates()
                    .allSatisfy(b -> assertThat(b).isBetween(0, depth - 1));
            assertThat(q.busy()).isEqualTo(depth);
            assertThat(q.get(0)).isEqualTo(-1);
            assertThat(q.getBatch(4, 0, new int[4])).isZero();
        }
    }

    @Test
    void depthZeroNeverAllocates() {
        SbitmapQueue q = create(SbitmapConfig.of(0, 1));
        assertThat(q.get(0)).isEqualTo(-1);
        assertThat(q.busy()).isZero();
    }

    @Test
    void everyFreedBitIsReusable() {
        SbitmapQueue q = create(SbitmapConfig.of(200, 3));
        List<Integer> held = fill(q, 3);
        Random rnd = new Random(7);
        Set<Integer> freed = new HashSet<>();
        for (int b : held) {
            if (rnd.nextBoolean()) {
                q.clear(b, rnd.nextInt(3));
                freed.add(b);
            }
        }
        assertThat(q.busy()).isEqualTo(200 - freed.size());
        assertThat(new HashSet<>(fill(q, 3))).isEqualTo(freed);
        assertThat(q.busy()).isEqualTo(200);
    }

    @Test
    void busyFollowsARandomSequenceExactly() {
        SbitmapQueue q = create(SbitmapConfig.of(96, 2));
        Random rnd = new Random(42);
        BitSet model = new BitSet();
        List<Integer> held = new ArrayList<>();
        for (int step = 0; step < 5000; step++) {
            if (held.isEmpty() || rnd.nextInt(3) > 0) {
                int bit = q.get(rnd.nextInt(2));
                if (bit < 0) {
                    assertThat(model.cardinality()).isEqualTo(96);
                } else {
                    assertThat(model.get(bit)).as("bit %d handed out twice", bit).isFalse();
                    model.set(bit);
                    held.add(bit);
                }
            } else {
                int bit = held.remove(rnd.nextInt(held.size()));
                q.clear(bit, rnd.nextInt(2));
                model.clear(bit);
            }
            assertThat(q.busy()).isEqualTo(model.cardinality());
        }
    }

    @Test
    void concurrentGetAndClearNeverHandOutABitTwice() throws Exception {
        int threads = 4;
        int depth = 48;
        SbitmapQueue q = create(SbitmapConfig.of(depth, threads));
        AtomicIntegerArray owner = new AtomicIntegerArray(depth);
        AtomicReference<String> failure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t + 1;
            workers.add(Thread.ofPlatform().start(() -> {
                int[] mine = new int[6];
                try {
                    start.await();
                    for (int round = 0; round < 20_000; round++) {
                        int n = 0;
                        for (; n < mine.length; n++) {
                            int bit = q.get(me - 1);
                            if (bit < 0) {
                                break;
                            }
                            if (!owner.compareAndSet(bit, 0, me)) {
                                failure.compareAndSet(null, "bit " + bit + " held by " + owner.get(bit) + " given to " + me);
                            }
                            mine[n] = bit;
                        }
                        for (int i = 0; i < n; i++) {
                            owner.set(mine[i], 0);
                            q.clear(mine[i], me - 1);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        start.countDown();
        for (Thread w : workers) {
            w.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertThat(failure.get()).isNull();
        assertThat(q.busy()).isZero();
        assertThat(fill(q, threads)).hasSize(depth);
    }

    @Test
    void forEachSetVisitsExactlyTheHeldBitsFromTheStartWrappingOnce() {
        SbitmapQueue q = create(SbitmapConfig.of(40, 1));
        List<Integer> held = fill(q, 1);
        for (int b : held) {
            if (b % 3 != 0) {
                q.clear(b, 0);
            }
        }
        List<Integer> seen = new ArrayList<>();
        q.forEachSet(20, b -> seen.add(b));
        assertThat(seen).containsExactly(21, 24, 27, 30, 33, 36, 39, 0, 3, 6, 9, 12, 15, 18);
        seen.clear();
        q.forEachSet(0, b -> seen.add(b) && seen.size() < 3);
        assertThat(seen).containsExactly(0, 3, 6);
    }

    @Test
    void resizeMovesTheDepthWithinTheCapacity() {
        SbitmapQueue q = create(SbitmapConfig.of(64, 2).withCapacity(128));
        assertThat(q.capacity()).isEqualTo(128);
        assertThat(fill(q, 2)).hasSize(64).allSatisfy(b -> assertThat(b).isLessThan(64));

        q.resize(128);
        assertThat(q.depth()).isEqualTo(128);
        List<Integer> more = fill(q, 2);
        assertThat(more).hasSize(64).doesNotHaveDuplicates().allSatisfy(b -> assertThat(b).isBetween(64, 127));
        assertThat(q.busy()).isEqualTo(128);

        q.resize(32);
        assertThat(q.depth()).isEqualTo(32);
        assertThat(q.get(0)).isEqualTo(-1);
        for (int b : more) {
            q.clear(b, 0); // bits above a shrunk depth are still freed normally
        }
        assertThat(q.busy()).isEqualTo(64);
        q.clear(40, 1);
        q.clear(5, 1);
        assertThat(q.get(1)).isEqualTo(5);
        assertThat(q.get(0)).isEqualTo(-1);

        assertThatThrownBy(() -> q.resize(129)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> q.resize(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(q.depth()).isEqualTo(32);
    }

    @Test
    void shallowDepthIsAWholeMapBudget() {
        for (int depth : new int[] {16, 64, 100, 256}) {
            for (int shallow : new int[] {1, 3, 8, 17, depth - 1, depth, depth + 5}) {
                SbitmapQueue q = create(SbitmapConfig.of(depth, 2));
                q.setMinShallowDepth(1);
                List<Integer> got = new ArrayList<>();
                for (int bit; (bit = q.getShallow(got.size() % 2, shallow)) >= 0; ) {
                    got.add(bit);
                }
                assertThat(got).as("depth %d shallow %d", depth, shallow)
                        .hasSize(Math.min(shallow, depth)).doesNotHaveDuplicates();
                // the rest of the map is still there for full-depth allocation
                assertThat(fill(q, 2)).hasSize(depth - got.size());
            }
        }
    }

    @Test
    void shallowDepthBelowTheDeclaredMinimumIsRejected() {
        SbitmapQueue q = create(SbitmapConfig.of(64, 1));
        assertThat(q.minShallowDepth()).isEqualTo(Integer.MAX_VALUE);
        assertThatThrownBy(() -> q.getShallow(0, 8)).isInstanceOf(IllegalArgumentException.class);
        q.setMinShallowDepth(8);
        assertThat(q.minShallowDepth()).isEqualTo(8);
        assertThat(q.getShallow(0, 8)).isBetween(0, 63);
        assertThatThrownBy(() -> q.getShallow(0, 7)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> q.setMinShallowDepth(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void batchGetHandsOutDistinctFreeBitsAndBatchClearReturnsThem() {
        SbitmapQueue q = create(SbitmapConfig.of(256, 2));
        int[] out = new int[8];
        BitSet all = new BitSet();
        int total = 0;
        for (int k; (k = q.getBatch(8, total % 2, out)) > 0; total += k) {
            assertThat(k).isBetween(1, 8);
            for (int i = 0; i < k; i++) {
                assertThat(all.get(out[i])).as("bit %d handed out twice", out[i]).isFalse();
                all.set(out[i]);
            }
        }
        assertThat(total).isEqualTo(256);
        assertThat(q.busy()).isEqualTo(256);
        assertThat(q.get(0)).isEqualTo(-1);
        int[] scattered = {3, 200, 4, 70, 199, 5, 130};
        q.clearBatch(scattered, scattered.length);
        assertThat(q.busy()).isEqualTo(256 - scattered.length);
        assertThat(new HashSet<>(fill(q, 2))).containsExactlyInAnyOrder(3, 4, 5, 70, 130, 199, 200);
    }

    @Test
    void batchClearOfAFreeBitIsRejectedBeforeAnythingIsFreed() {
        SbitmapQueue q = create(SbitmapConfig.of(64, 1));
        List<Integer> held = fill(q, 1);
        q.clear(held.get(0), 0);
        int[] bits = {held.get(1), held.get(0)};
        assertThatThrownBy(() -> q.clearBatch(bits, 2)).isInstanceOf(IllegalStateException.class);
        assertThat(q.busy()).isEqualTo(63);
        assertThatThrownBy(() -> q.clearBatch(bits, 3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void batchGetIsNotUsedInRoundRobinMode() {
        SbitmapQueue q = create(SbitmapConfig.of(64, 1).withRoundRobin(true));
        assertThat(q.getBatch(4, 0, new int[4])).isZero();
        assertThat(q.busy()).isZero();
    }

    @Test
    void invalidArgumentsAreRejected() {
        SbitmapQueue q = create(SbitmapConfig.of(32, 2));
        assertThatThrownBy(() -> q.get(2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> q.get(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> q.clear(32, 0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> q.clear(0, 5)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> q.clear(3, 0)).isInstanceOf(IllegalStateException.class);
        int bit = q.get(0);
        q.clear(bit, 0);
        assertThatThrownBy(() -> q.clear(bit, 0)).isInstanceOf(IllegalStateException.class);
        assertThat(q.busy()).isZero();
        assertThatThrownBy(() -> q.getBatch(5, 0, new int[4])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> q.recalculateWakeBatch(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> q.getBlocking(0, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new SbitmapConfig(8, 4, -1, false, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SbitmapConfig(8, 8, 7, false, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SbitmapConfig(8, 8, -1, false, 0)).isInstanceOf(IllegalArgumentException.class);
    }

}
