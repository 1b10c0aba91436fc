package io.hostwide.sbitmap;

import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking of {@link ShardedSbitmapQueue}'s get and clear against
 * a counting pool: {@code acquire} succeeds iff fewer than {@code depth} bits are
 * held, {@code release} frees one bit the calling thread holds. One 64-bit word
 * (depth 3, shift 6), because across several words the kernel's algorithm is
 * deliberately not linearizable: a get walking the words can miss a bit freed
 * behind it and fail although the map was never full (the waiting protocol's
 * re-try covers that; {@link SbitmapStressTest} checks the multi-word safety
 * properties). Each thread uses its own hint slot and remembers its own bits,
 * so the harness adds no cross-thread state of its own. After each run,
 * {@link #quiescent} checks the busy count.
 */
public class SbitmapLincheckTest {

    private static final int DEPTH = 3;
    private static final int THREADS = 3;
    /** ThreadIdGen hands out 0..THREADS, the last for Lincheck's own validation runs. */
    private static final int SLOTS = THREADS + 1;

    private final ShardedSbitmapQueue q = new ShardedSbitmapQueue(new SbitmapConfig(DEPTH, DEPTH, 6, false, SLOTS));
    /** Bits each thread holds; slot t is only touched by thread t. */
    private final long[] heldBy = new long[SLOTS];

    @Operation
    public boolean acquire(@Param(gen = ThreadIdGen.class) int tid) {
        int bit = q.get(tid);
        if (bit < 0) {
            return false;
        }
        for (long other : heldBy) {
            if ((other & (1L << bit)) != 0) {
                throw new IllegalStateException("bit " + bit + " handed out twice");
            }
        }
        heldBy[tid] |= 1L << bit;
        return true;
    }

    @Operation
    public boolean release(@Param(gen = ThreadIdGen.class) int tid) {
        long mine = heldBy[tid];
        if (mine == 0) {
            return false;
        }
        long low = Long.lowestOneBit(mine);
        heldBy[tid] = mine & ~low;
        q.clear(Long.numberOfTrailingZeros(low), tid);
        return true;
    }

    @Validate
    public void quiescent() {
        int held = 0;
        for (long m : heldBy) {
            held += Long.bitCount(m);
        }
        if (q.busy() != held) {
            throw new IllegalStateException("busy " + q.busy() + " but " + held + " held");
        }
    }

    /** The sequential specification: a pool of DEPTH interchangeable bits, counted per thread. */
    public static final class Pool {
        private final int[] heldBy = new int[SLOTS];
        private int held;

        public boolean acquire(int tid) {
            if (held == DEPTH) {
                return false;
            }
            held++;
            heldBy[tid]++;
            return true;
        }

        public boolean release(int tid) {
            if (heldBy[tid] == 0) {
                return false;
            }
            held--;
            heldBy[tid]--;
            return true;
        }

        public void quiescent() {
        }
    }

    @Test
    void modelCheck() {
        new ModelCheckingOptions()
                .sequentialSpecification(Pool.class)
                .iterations(40)
                .invocationsPerIteration(400)
                .threads(THREADS)
                .actorsPerThread(3)
                .actorsBefore(0)
                .actorsAfter(0)
                .check(SbitmapLincheckTest.class);
    }

    @Test
    void stress() {
        new StressOptions()
                .sequentialSpecification(Pool.class)
                .iterations(30)
                .invocationsPerIteration(300)
                .threads(THREADS)
                .actorsPerThread(4)
                .actorsBefore(0)
                .actorsAfter(0)
                .check(SbitmapLincheckTest.class);
    }
}
