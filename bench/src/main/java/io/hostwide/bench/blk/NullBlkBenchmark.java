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

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * The null device through the whole block layer — submit → tag → direct issue →
 * queue_rq → batched "softirq" completion → tags cleared in a batch — on one
 * thread, scheduler none. One invocation submits {@value #IODEPTH} 4 KiB reads
 * under a plug (sent in batches of 32, {@code BLK_MAX_REQUEST_COUNT}) and they
 * complete before it returns, so the result is I/Os per second.
 * {@code shared_tag_bitmap} 0/1 compares per-hctx tags with host-wide tags.
 * <pre>
 * java -jar bench/target/benchmarks.jar NullBlkBenchmark -f 1 -wi 2 -i 3 -w 2s -r 2s
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class NullBlkBenchmark {
    static final int IODEPTH = 64;

    @Param({"64", "4000"})
    public int hwQueueDepth;

    @Param({"0", "1"})
    public int sharedTagBitmap;

    private ThreadPoolKblockd kblockd;
    private NullDevice dev;
    private SubmitHandle handle;
    private final ByteBuffer buf = ByteBuffer.allocateDirect(4096);
    private long completed;
    private long failed;
    private long offset;
    private final IoCallback cb = (ud, st) -> {
        if (st == BlkStatus.OK) {
            completed++;
        } else {
            failed++;
        }
    };

    @Setup(Level.Trial)
    public void setUp() {
        kblockd = new ThreadPoolKblockd("bench-kblockd", 1);
        NullConfig cfg = NullConfig.parse("submit_queues=2,irqmode=1,hw_queue_depth=" + hwQueueDepth
                + ",shared_tag_bitmap=" + sharedTagBitmap, "bench");
        dev = NullDevice.create(cfg, kblockd);
        handle = dev.openHandle();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (failed != 0) {
            throw new IllegalStateException(failed + " I/Os failed");
        }
        handle.close();
        dev.close();
        kblockd.close();
    }

    @Benchmark
    @OperationsPerInvocation(IODEPTH)
    public long randRead4k() {
        SubmitHandle h = handle;
        h.startPlug();
        long off = offset;
        for (int i = 0; i < IODEPTH; i++) {
            h.read(off, 4096, buf, cb, i);
            off = (off + 4096) & ((1L << 30) - 1);
        }
        h.finishPlug();
        offset = off;
        return completed;
    }
}
