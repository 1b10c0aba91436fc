package io.hostwide.bench.tcm;

import io.hostwide.scsi.spec.Cdb10;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.core.CoreConfig;
import io.hostwide.tcm.dispatch.GateSlot;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.spi.TargetCommand;
import io.hostwide.tcm.TargetCore;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spi.Fabric;
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

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * READ(10) of 4 KiB through the target core (no transport) against a RAM backstore: LUN lookup, table lookup,
 * CDB checks, unit attention gate, handler, backstore copy into the pooled Data-In buffer, residuals, completion on
 * the submitting thread. Each benchmark thread is one I_T nexus (as one iSCSI connection reader would be).
 * Run with -t 1 and -t 2.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class TargetReadBenchmark {

    static final int BLOCK = 4096;
    static final long BLOCKS = 16_384; // 64 MiB

    @State(Scope.Benchmark)
    public static class Shared {
        /** With the task-attribute gate (device-wide SIMPLE counters) or without it, to see what it costs. */
        @Param({"true", "false"})
        boolean orderingGate;
        TargetCore core;
        TargetPort port;
        final AtomicInteger sessions = new AtomicInteger();

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            core = new TargetCore(CoreConfig.defaults().withPowerOnUnitAttention(false));
            if (!orderingGate) {
                core.installGate(GateSlot.TASK_ATTRIBUTE, null);
            }
            ScsiTarget t = core.addTarget("iqn.2026-12.io.hostwide:bench");
            port = core.addPort(t, 1, 5);
            RamBackstore ram = new RamBackstore(BLOCKS * BLOCK, BLOCK);
            ByteBuffer fill = ByteBuffer.allocate(BLOCK);
            for (long lba = 0; lba < BLOCKS; lba++) { // every page allocated: reads copy real data
                fill.clear().putLong(0, lba);
                ram.write(lba, fill, false);
            }
            Device d = core.addDevice("ram0", ram, new DeviceAttributes());
            port.addLun(0, d);
            port.demoMode(true, false);
        }

        @TearDown(Level.Trial)
        public void tearDown() { core.close(); }
    }

    /** Completes inline: checks the status, counts bytes, returns the command to the pool. */
    static final class CountingFabric implements Fabric {
        long bytes;
        int errors;

        @Override
        public int protocolIdentifier() { return 5; }

        @Override
        public void complete(TargetCommand cmd) {
            if (cmd.status() != 0) {
                errors++;
            }
            bytes += cmd.dataIn().remaining();
            cmd.release();
        }
    }

    @State(Scope.Thread)
    public static class Nexus {
        Session session;
        CountingFabric fabric = new CountingFabric();
        final byte[] cdb = new byte[16];
        long seed;
        long tag;

        @Setup(Level.Trial)
        public void setUp(Shared shared) {
            int n = shared.sessions.incrementAndGet();
            session = shared.core.openSession(shared.port, fabric, "iqn.2026-12.io.hostwide:init" + n,
                    "iqn.2026-12.io.hostwide:init" + n + ",i,0x" + n);
            seed = 0x9E3779B97F4A7C15L * n;
        }

        @TearDown(Level.Trial)
        public void check() {
            if (fabric.errors != 0) {
                throw new IllegalStateException(fabric.errors + " commands failed");
            }
            session.close();
        }
    }

    @Benchmark
    public long read10(Nexus n) {
        long x = n.seed; // xorshift: a random 4 KiB block
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        n.seed = x;
        long lba = (x >>> 1) % BLOCKS;
        Cdb10.encode(n.cdb, ScsiOpcode.READ_10, 0, lba, 1, 0, 0);
        TargetCommand c = n.session.newCommand()
                .setup(0, n.cdb, 0, 16, TaskAttribute.SIMPLE, n.tag++, BLOCK, TargetCommand.DIR_READ);
        n.session.submit(c);
        return n.fabric.bytes;
    }
}
