package io.hostwide.bench.blk;

import java.util.function.LongUnaryOperator;

/**
 * Two null device configurations as a paired ratio (see {@link SharedTagsRatio} for why), e.g. one hardware
 * queue against two for two submitters:
 * <pre>
 * java -cp bench/target/benchmarks.jar io.hostwide.bench.blk.NullPairRatio 2 60 50 \
 *     submit_queues=2,irqmode=1,hw_queue_depth=4000,nomerges=2 \
 *     submit_queues=1,irqmode=1,hw_queue_depth=4000,nomerges=2
 * </pre>
 * Arguments: threads, rounds, slice in ms, knobs of A, knobs of B.
 */
public final class NullPairRatio {
    private NullPairRatio() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: NullPairRatio THREADS ROUNDS SLICE_MS KNOBS_A KNOBS_B");
            System.exit(2);
        }
        int threads = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        long sliceNanos = Long.parseLong(args[2]) * 1_000_000L;
        Object a = NullSlices.open(args[3]);
        Object b = NullSlices.open(args[4]);
        LongUnaryOperator[][] runners = new LongUnaryOperator[threads][];
        for (int t = 0; t < threads; t++) {
            runners[t] = new LongUnaryOperator[] {NullSlices.runner(a), NullSlices.runner(b)};
        }
        System.out.printf("threads=%d rounds=%d slice=%dms%nA: %s%nB: %s%n", threads, rounds, sliceNanos / 1_000_000,
                args[3], args[4]);
        System.out.println(PairedSlices.run(runners, rounds, sliceNanos));
        System.exit(0);   // the devices' kblockd threads are daemons of no one: end here
    }
}
