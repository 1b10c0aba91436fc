package io.hostwide.bench.sbitmap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A companion to {@link SbitmapBenchmark} for a shared, noisy machine: the pools
 * take turns in short slices, round after round, so each round compares them
 * under about the same background load, and the report gives per-round medians
 * and the median ratio of sbitmap to the best other pool. Not a JMH run: no
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
        double[][] opsPerUs = new double[POOLS.length][rounds];
        double[] ratio = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            double bestOther = 0;
            for (int p = 0; p < POOLS.length; p++) {
                opsPerUs[p][r] = slice(pools[p], threads, sliceMs);
                if (p > 0) {
                    bestOther = Math.max(bestOther, opsPerUs[p][r]);
                }
            }
            ratio[r] = opsPerUs[0][r] / bestOther;
        }
        System.out.printf("depth=%d threads=%d rounds=%d slice=%dms (ops/us, median [min..max])%n",
                depth, threads, rounds, sliceMs);
        for (int p = 0; p < POOLS.length; p++) {
            double[] v = opsPerUs[p].clone();
            Arrays.sort(v);
            System.out.printf("  %-20s %8.2f [%.2f..%.2f]%n", POOLS[p], v[rounds / 2], v[0], v[rounds - 1]);
        }
        double[] q = ratio.clone();
        Arrays.sort(q);
        System.out.printf("  sbitmap / best other, per round: median %.2f [%.2f..%.2f]%n", q[rounds / 2], q[0], q[rounds - 1]);
    }

    /** Runs {@code threads} threads on one pool for {@code ms}; returns get+put pairs per microsecond. */
    private static double slice(TagPool pool, int threads, long ms) throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch ready = new CountDownLatch(threads);
        long[] counts = new long[threads];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t;
            workers.add(Thread.ofPlatform().start(() -> {
                ready.countDown();
                counts[me] = pool.spin(me, stop);
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
        for (long c : counts) {
            total += c;
        }
        return total / (elapsed / 1000.0);
    }
}
