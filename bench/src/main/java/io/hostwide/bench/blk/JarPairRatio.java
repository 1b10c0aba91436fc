package io.hostwide.bench.blk;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;
import java.util.function.LongUnaryOperator;

/**
 * Before/after in one JVM: the same null device configuration on two builds of the block layer (any jars that
 * contain it: {@code benchmarks.jar} or {@code hostwide.jar}), each in its own class loader, as a paired ratio
 * B/A (see {@link SharedTagsRatio}). On a shared, loaded machine two separate runs minutes apart see different
 * loads; interleaved slices do not.
 * <pre>
 * java -cp bench/target/benchmarks.jar io.hostwide.bench.blk.JarPairRatio /tmp/before.jar bench/target/benchmarks.jar \
 *     2 60 50 submit_queues=2,shared_tag_bitmap=1,irqmode=1,hw_queue_depth=4000,nomerges=2
 * </pre>
 * Arguments: jar A, jar B, threads, rounds, slice in ms, knobs.
 */
public final class JarPairRatio {
    private static final String DRIVER = NullSlices.class.getName();

    private JarPairRatio() {
    }

    public static void main(String[] args) throws Throwable {
        if (args.length != 6) {
            System.err.println("usage: JarPairRatio JAR_A JAR_B THREADS ROUNDS SLICE_MS KNOBS");
            System.exit(2);
        }
        int threads = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        long sliceNanos = Long.parseLong(args[4]) * 1_000_000L;
        String knobs = args[5];
        byte[] driver = driverBytes();
        Object[] devices = new Object[2];
        MethodHandle[] runner = new MethodHandle[2];
        for (int side = 0; side < 2; side++) {
            Class<?> c = new BuildLoader(Path.of(args[side]), DRIVER, driver).loadClass(DRIVER);
            MethodHandles.Lookup l = MethodHandles.publicLookup();
            devices[side] = l.findStatic(c, "open", MethodType.methodType(Object.class, String.class)).invoke(knobs);
            runner[side] = l.findStatic(c, "runner", MethodType.methodType(LongUnaryOperator.class, Object.class));
        }
        LongUnaryOperator[][] runners = new LongUnaryOperator[threads][2];
        for (int t = 0; t < threads; t++) {
            for (int side = 0; side < 2; side++) {
                runners[t][side] = (LongUnaryOperator) runner[side].invoke(devices[side]);
            }
        }
        System.out.printf("threads=%d rounds=%d slice=%dms knobs=%s%nA: %s%nB: %s%n", threads, rounds,
                sliceNanos / 1_000_000, knobs, args[0], args[1]);
        System.out.println(PairedSlices.run(runners, rounds, sliceNanos));
        System.exit(0);
    }

    private static byte[] driverBytes() throws IOException {
        return BuildLoader.classBytes(DRIVER);
    }
}
