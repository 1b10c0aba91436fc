package io.hostwide.bench.blk;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.IoCallback;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.blk.exec.ThreadPoolKblockd;
import io.hostwide.blk.nullb.NullConfig;
import io.hostwide.blk.nullb.NullDevice;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CyclicBarrier;

/**
 * Host-wide vs per-hctx tags at depth 4000 as a paired ratio, for noisy shared
 * machines where two JMH runs minutes apart see different loads: the same job
 * threads alternate short slices between a {@code shared_tag_bitmap=0} and a
 * {@code =1} null device, and the ratio of each adjacent pair is reported
 * (median and quartiles), so slow drifts in machine load cancel out.
 * <pre>
 * java -cp bench/target/benchmarks.jar io.hostwide.bench.blk.SharedTagsRatio [threads=2] [rounds=60] [sliceMs=50]
 * </pre>
 */
public final class SharedTagsRatio {
    private static final int IODEPTH = 64;

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        long sliceNanos = (args.length > 2 ? Long.parseLong(args[2]) : 50) * 1_000_000L;
        try (ThreadPoolKblockd kb = new ThreadPoolKblockd("ratio-kblockd", 1)) {
            NullDevice perHctx = NullDevice.create(NullConfig.parse(
                    "submit_queues=2,irqmode=1,hw_queue_depth=4000,shared_tag_bitmap=0", "per-hctx"), kb);
            NullDevice hostWide = NullDevice.create(NullConfig.parse(
                    "submit_queues=2,irqmode=1,hw_queue_depth=4000,shared_tag_bitmap=1", "host-wide"), kb);
            long[][] ios = new long[2][rounds + 10];
            CyclicBarrier barrier = new CyclicBarrier(threads);
            Thread[] jobs = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                SubmitHandle a = perHctx.openHandle();
                SubmitHandle b = hostWide.openHandle();
                jobs[t] = new Thread(() -> run(a, b, ios, rounds + 10, sliceNanos, barrier), "job" + t);
                jobs[t].start();
            }
            for (Thread j : jobs) {
                j.join();
            }
            double[] ratio = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                ratio[r] = (double) ios[1][r + 10] / ios[0][r + 10];   // first 10 rounds are warm-up
            }
            Arrays.sort(ratio);
            long sumA = 0;
            long sumB = 0;
            for (int r = 10; r < rounds + 10; r++) {
                sumA += ios[0][r];
                sumB += ios[1][r];
            }
            double secs = rounds * sliceNanos / 1e9;
            System.out.printf("threads=%d rounds=%d slice=%dms%n", threads, rounds, sliceNanos / 1_000_000);
            System.out.printf("per-hctx tags : %.2f M IOPS (mean over its slices)%n", sumA / secs / 1e6);
            System.out.printf("host-wide tags: %.2f M IOPS (mean over its slices)%n", sumB / secs / 1e6);
            System.out.printf("host-wide / per-hctx, paired: median %.3f, quartiles %.3f .. %.3f%n",
                    ratio[rounds / 2], ratio[rounds / 4], ratio[3 * rounds / 4]);
            perHctx.close();
            hostWide.close();
        }
    }

    private static void run(SubmitHandle a, SubmitHandle b, long[][] ios, int rounds, long sliceNanos,
                            CyclicBarrier barrier) {
        ByteBuffer buf = ByteBuffer.allocateDirect(4096);
        long[] done = new long[1];
        IoCallback cb = (ud, st) -> {
            if (st == BlkStatus.OK) {
                done[0]++;
            }
        };
        try {
            for (int r = 0; r < rounds; r++) {
                for (int which = 0; which < 2; which++) {
                    SubmitHandle h = which == 0 ? a : b;
                    barrier.await();
                    long before = done[0];
                    long end = System.nanoTime() + sliceNanos;
                    long off = 0;
                    while (System.nanoTime() < end) {
                        h.startPlug();
                        for (int i = 0; i < IODEPTH; i++) {
                            h.read(off, 4096, buf, cb, i);
                            off = (off + 4096) & ((1L << 30) - 1);
                        }
                        h.finishPlug();
                    }
                    synchronized (ios) {
                        ios[which][r] += done[0] - before;
                    }
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
