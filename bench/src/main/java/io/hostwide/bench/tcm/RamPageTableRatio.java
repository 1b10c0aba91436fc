package io.hostwide.bench.tcm;

import io.hostwide.bench.blk.PairedSlices;
import io.hostwide.tcm.backstore.RamBackstore;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;

/**
 * The paired form of {@link RamPageTableBenchmark}, for a loaded shared machine: side A the flat page table it
 * replaced, side B the radix, 4 KiB random reads over 256 MiB written in a 1 GiB LUN, alternating slices in one JVM;
 * prints the median of B / A.
 *
 * <pre>java -cp bench/target/benchmarks.jar io.hostwide.bench.tcm.RamPageTableRatio THREADS ROUNDS SLICE_MS</pre>
 */
public final class RamPageTableRatio {
    private RamPageTableRatio() {}

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        long sliceNanos = Long.parseLong(args[2]) * 1_000_000L;
        RamPageTableBenchmark.FlatPages flat = new RamPageTableBenchmark.FlatPages(RamPageTableBenchmark.LUN, 512);
        RamBackstore radix = new RamBackstore(RamPageTableBenchmark.LUN, 512);
        ByteBuffer fill = ByteBuffer.allocate(1 << 20);
        for (long at = 0; at < RamPageTableBenchmark.WRITTEN; at += fill.capacity()) {
            flat.write(at / 512, fill.clear());
            radix.write(at / 512, fill.clear(), false);
        }
        LongUnaryOperator[][] runners = new LongUnaryOperator[threads][];
        for (int t = 0; t < threads; t++) {
            ByteBuffer buf = ByteBuffer.allocate(RamPageTableBenchmark.READ);
            SplittableRandom random = new SplittableRandom(t);
            long slots = RamPageTableBenchmark.WRITTEN / RamPageTableBenchmark.READ;
            int step = RamPageTableBenchmark.READ / 512;
            runners[t] = new LongUnaryOperator[] {
                slice -> {
                    long end = System.nanoTime() + slice;
                    long n = 0;
                    do {
                        for (int i = 0; i < 256; i++) {
                            flat.read(random.nextLong(slots) * step, buf.clear());
                        }
                        n += 256;
                    } while (System.nanoTime() < end);
                    return n;
                },
                slice -> {
                    long end = System.nanoTime() + slice;
                    long n = 0;
                    do {
                        for (int i = 0; i < 256; i++) {
                            radix.read(random.nextLong(slots) * step, buf.clear());
                        }
                        n += 256;
                    } while (System.nanoTime() < end);
                    return n;
                }
            };
        }
        System.out.println("A = flat page table (before issue 12), B = radix page table");
        System.out.println(PairedSlices.run(runners, rounds, sliceNanos));
    }
}
