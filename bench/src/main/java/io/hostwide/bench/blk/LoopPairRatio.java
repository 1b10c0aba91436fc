package io.hostwide.bench.blk;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;
import java.util.function.LongUnaryOperator;

/**
 * The {@code lab shared-tags} setting as a paired ratio B/A (see {@link SharedTagsRatio}): two HBA
 * configurations, or two builds, side by side in one JVM, one job thread per disk alternating slices.
 * A jar of {@code -} means this build. E.g. one hardware queue against 16 with host-wide tags:
 * <pre>
 * java -cp bench/target/benchmarks.jar io.hostwide.bench.blk.LoopPairRatio - - 12 30 200 \
 *     'num_tgts=12,submit_queues=16,host_max_queue=4000,ndelay=50000' \
 *     'num_tgts=12,submit_queues=1,max_queue=4000,ndelay=50000'
 * </pre>
 * and a base build against this one: {@code LoopPairRatio /tmp/base.jar - 12 30 200 'KNOBS;mq-deadline'}.
 * Arguments: jar A, jar B, threads, rounds, slice in ms, knobs of A (with an optional {@code ;scheduler}),
 * knobs of B (default: A's).
 */
public final class LoopPairRatio {
    private static final String DRIVER = LoopSlices.class.getName();

    private LoopPairRatio() {
    }

    public static void main(String[] args) throws Throwable {
        if (args.length != 6 && args.length != 7) {
            System.err.println("usage: LoopPairRatio JAR_A|- JAR_B|- THREADS ROUNDS SLICE_MS KNOBS_A [KNOBS_B]");
            System.exit(2);
        }
        int threads = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        long sliceNanos = Long.parseLong(args[4]) * 1_000_000L;
        String[] knobs = {args[5], args.length == 7 ? args[6] : args[5]};
        byte[] driver = BuildLoader.classBytes(DRIVER);
        Object[] hbas = new Object[2];
        MethodHandle[] runner = new MethodHandle[2];
        MethodHandles.Lookup l = MethodHandles.publicLookup();
        for (int side = 0; side < 2; side++) {
            Class<?> c = args[side].equals("-") ? LoopSlices.class
                    : new BuildLoader(Path.of(args[side]), DRIVER, driver).loadClass(DRIVER);
            hbas[side] = l.findStatic(c, "open", MethodType.methodType(Object.class, String.class)).invoke(knobs[side]);
            runner[side] = l.findStatic(c, "runner",
                    MethodType.methodType(LongUnaryOperator.class, Object.class, int.class));
        }
        LongUnaryOperator[][] runners = new LongUnaryOperator[threads][2];
        for (int t = 0; t < threads; t++) {
            for (int side = 0; side < 2; side++) {
                runners[t][side] = (LongUnaryOperator) runner[side].invoke(hbas[side], t);
            }
        }
        System.out.printf("threads=%d rounds=%d slice=%dms%nA: %s %s%nB: %s %s%n", threads, rounds,
                sliceNanos / 1_000_000, args[0], knobs[0], args[1], knobs[1]);
        System.out.println(PairedSlices.run(runners, rounds, sliceNanos));
        System.exit(0);
    }
}
