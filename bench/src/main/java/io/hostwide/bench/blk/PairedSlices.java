package io.hostwide.bench.blk;

import java.util.Arrays;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.function.LongUnaryOperator;

/**
 * Runs job threads that alternate short slices between side A and side B and reports B/A per adjacent pair
 * (median and quartiles), so slow drifts in the load of a shared machine cancel out. The first
 * {@value #WARM_UP} rounds are warm-up and not counted.
 */
public final class PairedSlices {
    static final int WARM_UP = 10;

    private PairedSlices() {
    }

    /** {@code runners[t][0]} and {@code [t][1]} are thread t's runners of side A and side B. */
    public static String run(LongUnaryOperator[][] runners, int rounds, long sliceNanos) throws InterruptedException {
        int threads = runners.length;
        long[][] ios = new long[2][rounds + WARM_UP];
        CyclicBarrier barrier = new CyclicBarrier(threads);
        Thread[] jobs = new Thread[threads];
        Throwable[] failure = new Throwable[1];
        for (int t = 0; t < threads; t++) {
            LongUnaryOperator[] mine = runners[t];
            jobs[t] = new Thread(() -> {
                try {
                    for (int r = 0; r < rounds + WARM_UP; r++) {
                        for (int side = 0; side < 2; side++) {
                            barrier.await();
                            long n = mine[side].applyAsLong(sliceNanos);
                            synchronized (ios) {
                                ios[side][r] += n;
                            }
                        }
                    }
                } catch (InterruptedException | BrokenBarrierException | RuntimeException e) {
                    synchronized (failure) {
                        failure[0] = e;
                    }
                    barrier.reset();
                }
            }, "pair-job" + t);
            jobs[t].start();
        }
        for (Thread j : jobs) {
            j.join();
        }
        if (failure[0] != null) {
            throw new IllegalStateException("a job failed", failure[0]);
        }
        double[] ratio = new double[rounds];
        long sumA = 0;
        long sumB = 0;
        for (int r = 0; r < rounds; r++) {
            ratio[r] = (double) ios[1][r + WARM_UP] / ios[0][r + WARM_UP];
            sumA += ios[0][r + WARM_UP];
            sumB += ios[1][r + WARM_UP];
        }
        Arrays.sort(ratio);
        double secs = rounds * sliceNanos / 1e9;
        return String.format("A: %.3f M IOPS, B: %.3f M IOPS (means over their slices)%n"
                        + "B / A, paired: median %.3f, quartiles %.3f .. %.3f",
                sumA / secs / 1e6, sumB / secs / 1e6, ratio[rounds / 2], ratio[rounds / 4], ratio[3 * rounds / 4]);
    }
}
