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
 * mq-deadline against none on a null device with host-wide tags
 * ({@code shared_tag_bitmap=1}) over two hardware queues, at tag depth 64 and 4000
 * (seed 000's table, digest §3.1): two job threads, each invocation 64 plugged
 * 4 KiB reads. {@code pattern=rand} spreads the reads over 1 GiB (no merging: the
 * scheduler's cost); {@code pattern=seq} reads consecutive blocks (plug and
 * scheduler merging; ops are still counted per submitted read).
 * <pre>
 * java -jar bench/target/benchmarks.jar NullBlkSchedulerBenchmark -f 1 -wi 2 -i 3 -w 2s -r 2s
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(2)
public class NullBlkSchedulerBenchmark {
    static final int IODEPTH = 64;
    static final long SPAN_BLOCKS = (1L << 30) / 4096;

    @Param({"none", "mq-deadline"})
    public String scheduler;

    @Param({"64", "4000"})
    public int hwQueueDepth;

    @Param({"rand", "seq"})
    public String pattern;

    private ThreadPoolKblockd kblockd;
    NullDevice dev;

    @Setup(Level.Trial)
    public void setUp() {
        kblockd = new ThreadPoolKblockd("bench-kblockd", 1);
        dev = NullDevice.create(NullConfig.parse("submit_queues=2,irqmode=1,shared_tag_bitmap=1,hw_queue_depth="
                + hwQueueDepth + ",scheduler=" + scheduler, "bench-sched"), kblockd);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        long merges = dev.queue().merges();
        dev.close();
        kblockd.close();
        System.out.println("\n[" + scheduler + " depth=" + hwQueueDepth + " " + pattern + "] merges=" + merges);
    }

    /** One job thread with its own handle (software queue, hence hardware queue). */
    @State(Scope.Thread)
    public static class Job {
        SubmitHandle handle;
        final ByteBuffer buf = ByteBuffer.allocateDirect(4096);
        long completed;
        long failed;
        long next;
        long rnd;
        boolean seq;
        final IoCallback cb = (ud, st) -> {
            if (st == BlkStatus.OK) {
                completed++;
            } else {
                failed++;
            }
        };

        @Setup(Level.Trial)
        public void setUp(NullBlkSchedulerBenchmark b) {
            handle = b.dev.openHandle();
            seq = b.pattern.equals("seq");
            rnd = System.identityHashCode(this) | 1L;
            next = (rnd & 7) * (SPAN_BLOCKS / 8);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            if (failed != 0) {
                throw new IllegalStateException(failed + " I/Os failed");
            }
            handle.close();
        }

        long nextBlock() {
            if (seq) {
                long b = next;
                next = (next + 1) % SPAN_BLOCKS;
                return b;
            }
            long x = rnd;   // xorshift64: no allocation, no shared state
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            rnd = x;
            return Math.floorMod(x, SPAN_BLOCKS);
        }
    }

    @Benchmark
    @OperationsPerInvocation(IODEPTH)
    public long read4k(Job job) {
        SubmitHandle h = job.handle;
        h.startPlug();
        for (int i = 0; i < IODEPTH; i++) {
            h.read(job.nextBlock() * 4096, 4096, job.buf, job.cb, i);
        }
        h.finishPlug();
        return job.completed;
    }
}
