package io.hostwide.bench.blk;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.IoCallback;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.blk.exec.ThreadPoolKblockd;
import io.hostwide.blk.nullb.NullConfig;
import io.hostwide.blk.nullb.NullDevice;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * Host-wide shared tags against per-hctx tags at depth 4000 (the hisi_sas cover
 * letter's setting, digest §2.2), with two job threads on two hardware queues of
 * one null device, so with {@code shared_tag_bitmap=1} both allocate from one
 * bitmap. Each invocation is 64 plugged 4 KiB reads per thread.
 * <pre>
 * java -jar bench/target/benchmarks.jar NullBlkSharedTagsBenchmark -f 1 -wi 2 -i 3 -w 2s -r 2s
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(2)
public class NullBlkSharedTagsBenchmark {
    static final int IODEPTH = 64;

    @Param({"0", "1"})
    public int sharedTagBitmap;

    private ThreadPoolKblockd kblockd;
    NullDevice dev;

    @Setup(Level.Trial)
    public void setUp() {
        kblockd = new ThreadPoolKblockd("bench-kblockd", 1);
        dev = NullDevice.create(NullConfig.parse("submit_queues=2,irqmode=1,hw_queue_depth=4000,shared_tag_bitmap="
                + sharedTagBitmap, "bench-shared"), kblockd);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        dev.close();
        kblockd.close();
    }

    /** One job thread: its own handle, hence its own software queue and hardware queue. */
    @State(Scope.Thread)
    public static class Job {
        SubmitHandle handle;
        final ByteBuffer buf = ByteBuffer.allocateDirect(4096);
        long completed;
        long failed;
        long offset;
        final IoCallback cb = (ud, st) -> {
            if (st == BlkStatus.OK) {
                completed++;
            } else {
                failed++;
            }
        };

        @Setup(Level.Trial)
        public void setUp(NullBlkSharedTagsBenchmark b) {
            handle = b.dev.openHandle();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            if (failed != 0) {
                throw new IllegalStateException(failed + " I/Os failed");
            }
            handle.close();
        }
    }

    @Benchmark
    @OperationsPerInvocation(IODEPTH)
    public long randRead4k(Job job) {
        SubmitHandle h = job.handle;
        h.startPlug();
        long off = job.offset;
        for (int i = 0; i < IODEPTH; i++) {
            h.read(off, 4096, job.buf, job.cb, i);
            off = (off + 4096) & ((1L << 30) - 1);
        }
        h.finishPlug();
        job.offset = off;
        return job.completed;
    }
}
