package io.hostwide.bench.tcm;

import io.hostwide.tcm.core.Session;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * READ(10) of one 512-byte block through the target core with the LU's reservations local or shared through a
 * store with a second gateway (issue 16 item 3), with no reservation or one the reading nexus holds. The
 * shared store must cost nothing per command: the check reads the same one volatile PrState either way.
 * {@link ReservationCheckRatio} is the paired form for a loaded machine.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class ReservationCheckBenchmark {

    @Param({"false", "true"})
    boolean shared;

    @Param({"false", "true"})
    boolean reserved;

    SharedReservationGateway gateway;
    SharedReservationGateway.TargetBenchFabric fabric;
    Session session;
    final byte[] cdb = new byte[16];
    long seed = 0x9E3779B97F4A7C15L;
    long tag;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        gateway = new SharedReservationGateway(shared, reserved);
        fabric = new SharedReservationGateway.TargetBenchFabric();
        session = gateway.open(fabric);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        gateway.close();
        if (fabric.errors != 0) {
            throw new IllegalStateException(fabric.errors + " commands failed: the measurement is void");
        }
    }

    @Benchmark
    public long read10() {
        long x = seed;
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        seed = x;
        SharedReservationGateway.read(session, cdb, (x >>> 1) % SharedReservationGateway.BLOCKS, tag++);
        return fabric.done;
    }
}
