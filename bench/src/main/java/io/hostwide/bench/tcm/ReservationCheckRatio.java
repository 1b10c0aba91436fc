package io.hostwide.bench.tcm;

import io.hostwide.bench.blk.PairedSlices;
import io.hostwide.tcm.backstore.rbd.Rbd;
import io.hostwide.tcm.backstore.rbd.RbdConfig;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.lu.InMemoryReservationStore;

import java.util.function.LongUnaryOperator;

/**
 * The per-command cost of the reservation check with a shared store against the single-gateway one (issue 16
 * item 3), paired for a loaded shared machine: side A a gateway whose reservations are local (as before issue
 * 16), side B one whose reservations are shared with a second gateway through the in-memory store, or, with
 * {@code rados CONF POOL IMAGE}, through {@code RadosReservationStore} on a Ceph cluster (one RADOS client per
 * gateway, as two serve processes have); READ(10) of one 512-byte block through the target core, alternating
 * slices in one JVM; prints the median of B / A (commands per slice: above 1 means B is faster), and the store
 * calls made while measuring, which must be 0: the check reads the cached copy, never the store (the OSD). With
 * {@code reserved}, the RADOS run leaves its registration in the image's reservation object: use a scratch image.
 *
 * <pre>java -cp bench/target/benchmarks.jar io.hostwide.bench.tcm.ReservationCheckRatio THREADS ROUNDS SLICE_MS none|reserved [rados CONF POOL IMAGE]</pre>
 */
public final class ReservationCheckRatio {
    private ReservationCheckRatio() {}

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        long sliceNanos = Long.parseLong(args[2]) * 1_000_000L;
        boolean reserved = switch (args[3]) {
            case "none" -> false;
            case "reserved" -> true;
            default -> throw new IllegalArgumentException("state must be none or reserved, not " + args[3]);
        };
        boolean rados = args.length > 4;
        if (rados && (args.length != 8 || !"rados".equals(args[4]))) {
            throw new IllegalArgumentException("the store after the state is 'rados CONF POOL IMAGE', not "
                    + String.join(" ", java.util.Arrays.copyOfRange(args, 4, args.length)));
        }
        SharedReservationGateway.Stores stores = rados
                ? id -> Rbd.openReservationStore(RbdConfig.of(args[5], args[6], args[7]))
                : new InMemoryReservationStore()::client;
        try (SharedReservationGateway local = new SharedReservationGateway(false, reserved);
             SharedReservationGateway shared = new SharedReservationGateway(true, reserved, stores)) {
            LongUnaryOperator[][] runners = new LongUnaryOperator[threads][];
            SharedReservationGateway.TargetBenchFabric[] fabrics = new SharedReservationGateway.TargetBenchFabric[2 * threads];
            for (int t = 0; t < threads; t++) {
                runners[t] = new LongUnaryOperator[] {
                    slicer(local, fabrics, 2 * t, t), slicer(shared, fabrics, 2 * t + 1, t)
                };
            }
            System.out.println("A = local reservations (one gateway), B = shared through "
                    + (rados ? "RADOS (" + args[6] + "/" + args[7] + ")" : "the in-memory store")
                    + " with a second gateway, reservation: " + args[3]);
            long callsBefore = shared.storeCalls.get();
            System.out.println(PairedSlices.run(runners, rounds, sliceNanos));
            long calls = shared.storeCalls.get() - callsBefore;
            System.out.println("store calls while measuring: " + calls + (calls == 0 ? " (the check is cached)" : ""));
            long errors = 0;
            for (SharedReservationGateway.TargetBenchFabric f : fabrics) {
                errors += f.errors;
            }
            if (errors != 0) {
                throw new IllegalStateException(errors + " commands failed: the measurement is void");
            }
        }
    }

    private static LongUnaryOperator slicer(SharedReservationGateway g, SharedReservationGateway.TargetBenchFabric[] fabrics,
                                            int slot, int thread) {
        SharedReservationGateway.TargetBenchFabric fabric = new SharedReservationGateway.TargetBenchFabric();
        fabrics[slot] = fabric;
        Session s = g.open(fabric);
        byte[] cdb = new byte[16];
        long[] state = {0x9E3779B97F4A7C15L * (thread + 1), 0};
        return slice -> {
            long end = System.nanoTime() + slice;
            long before = fabric.done;
            do {
                for (int i = 0; i < 256; i++) {
                    long x = state[0];
                    x ^= x << 13;
                    x ^= x >>> 7;
                    x ^= x << 17;
                    state[0] = x;
                    SharedReservationGateway.read(s, cdb, (x >>> 1) % SharedReservationGateway.BLOCKS, state[1]++);
                }
            } while (System.nanoTime() < end);
            return fabric.done - before;
        };
    }
}
