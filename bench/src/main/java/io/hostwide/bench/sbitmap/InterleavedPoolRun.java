package io.hostwide.bench.sbitmap;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A companion to {@link SbitmapBenchmark} for a shared, noisy machine: the pools
 * take turns in short slices, round after round, so each round compares them
 * under about the same background load, and the report gives per-round medians
 * and the median ratio of sbitmap to the best other pool, both per wall-clock
 * microsecond and per microsecond of the worker threads' CPU time (which
 * discounts time spent waiting for a core, but also flatters a pool whose
 * threads block instead of spinning). Not a JMH run: no
 * forks, so treat absolute figures as rough; the ratios are the point.
 * <pre>
 * java -cp bench/target/benchmarks.jar io.hostwide.bench.sbitmap.InterleavedPoolRun [depth] [threads] [rounds] [sliceMs]
 * </pre>
 */
public final class InterleavedPoolRun {

    private static final String[] POOLS = {"sbitmap", "semaphoreClq", "arrayBlockingQueue", "jctoolsMpmc"};

    private InterleavedPoolRun() {
    }

    public static void main(String[] args) throws InterruptedException {
        int depth = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 15;
        long sliceMs = args.length > 3 ? Long.parseLong(args[3]) : 300;
        TagPool[] pools = new TagPool[POOLS.length];
        for (int p = 0; p < POOLS.length; p++) {
            pools[p] = TagPool.create(POOLS[p], depth, 16);
        }
        for (int r = 0; r < 3; r++) { // warm-up rounds, not recorded
            for (TagPool pool : pools) {
                slice(pool, threads, sliceMs);
            }
        }
        double[][] wall = new double[POOLS.length][rounds];
        double[][] cpu = new double[POOLS.length][rounds];
        double[] wallRatio = new double[rounds];
        double[] cpuRatio = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            for (int p = 0; p < POOLS.length; p++) {
                double[] both = slice(pools[p], threads, sliceMs);
                wall[p][r] = both[0];
                cpu[p][r] = both[1];
            }
            wallRatio[r] = wall[0][r] / bestOther(wall, r);
            cpuRatio[r] = cpu[0][r] / bestOther(cpu, r);
        }
        System.out.printf("depth=%d threads=%d rounds=%d slice=%dms, median [min..max]%n", depth, threads, rounds, sliceMs);
        System.out.printf("  %-20s %-26s %s%n", "pool", "pairs/us (wall clock)", "pairs/us of thread CPU time");
        for (int p = 0; p < POOLS.length; p++) {
            System.out.printf("  %-20s %-26s %s%n", POOLS[p], summary(wall[p]), summary(cpu[p]));
        }
        System.out.printf("  %-20s %-26s %s%n", "sbitmap/best other", summary(wallRatio), summary(cpuRatio));
    }

    private static double bestOther(double[][] v, int round) {
        double best = 0;
        for (int p = 1; p < v.length; p++) {
            best = Math.max(best, v[p][round]);
        }
        return best;
    }

    private static String summary(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return String.format("%.2f [%.2f..%.2f]", v[v.length / 2], v[0], v[v.length - 1]);
    }

    /**
     * Runs {@code threads} threads on one pool for {@code ms}; returns get+put pairs
     * per microsecond of wall-clock time and per microsecond of the threads' CPU
     * time (the second discounts time the threads spent waiting for a core).
     */
    private static double[] slice(TagPool pool, int threads, long ms) throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch ready = new CountDownLatch(threads);
        long[] counts = new long[threads];
        long[] cpuNanos = new long[threads];
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t;
            workers.add(Thread.ofPlatform().start(() -> {
                long cpu0 = mx.getCurrentThreadCpuTime();
                ready.countDown();
                counts[me] = pool.spin(me, stop);
                cpuNanos[me] = mx.getCurrentThreadCpuTime() - cpu0;
            }));
        }
        ready.await();
        long start = System.nanoTime();
        Thread.sleep(ms);
        stop.set(true);
        for (Thread w : workers) {
            w.join();
        }
        long elapsed = System.nanoTime() - start;
        long total = 0;
        long cpuTotal = 0;
        for (int t = 0; t < threads; t++) {
            total += counts[t];
            cpuTotal += cpuNanos[t];
        }
        // Per thread-CPU-microsecond, scaled by the thread count to read as pairs/us of the pool.
        return new double[] {total / (elapsed / 1000.0), total / (cpuTotal / 1000.0) * threads};
    }
}
