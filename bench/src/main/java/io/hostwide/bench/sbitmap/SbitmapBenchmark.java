package io.hostwide.bench.sbitmap;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Tag get+free pairs per second: {@link io.hostwide.sbitmap.ShardedSbitmapQueue}
 * against queue-based tag pools of the same depth. Each thread owns one hint
 * slot, as a blk-mq software queue does. Run with {@code -t 1} and {@code -t 2}:
 * <pre>
 * java -jar bench/target/benchmarks.jar SbitmapBenchmark -f 1 -wi 2 -i 3 -w 2s -r 2s -t 2
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SbitmapBenchmark {

    /** Hint slots; more than any -t used here. */
    private static final int SLOTS = 16;

    @Param({"sbitmap", "semaphoreClq", "arrayBlockingQueue", "jctoolsMpmc"})
    public String pool;

    @Param({"256", "4000"})
    public int depth;

    TagPool tags;
    final AtomicInteger nextSlot = new AtomicInteger();

    @Setup
    public void setUp() {
        tags = TagPool.create(pool, depth, SLOTS);
    }

    /** The calling thread's hint slot. */
    @State(Scope.Thread)
    public static class Slot {
        int hint;

        @Setup
        public void setUp(SbitmapBenchmark shared) {
            hint = shared.nextSlot.getAndIncrement() % SLOTS;
        }
    }

    /** One tag taken and given back: what a request costs the tag allocator. */
    @Benchmark
    public int getAndPut(Slot slot) {
        int tag = tags.get(slot.hint);
        if (tag >= 0) {
            tags.put(tag, slot.hint);
        }
        return tag;
    }
}
