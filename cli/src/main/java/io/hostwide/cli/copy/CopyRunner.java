package io.hostwide.cli.copy;

import io.hostwide.blk.api.BlockDevice;
import io.hostwide.cli.util.Interrupts;
import io.hostwide.management.util.Sizes;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one {@link Phase} over a {@link CopyPlan} with {@code numjobs} threads pulling
 * chunks from a shared cursor, prints progress each second, and stops cleanly on
 * Ctrl-C or the first I/O error: no new chunk starts, every started one finishes.
 */
public final class CopyRunner {

    private final Phase phase;
    private final VerifyMethod method;
    private final BlockDevice src;
    private final BlockDevice dst;
    private final CopyPlan plan;
    private final Interrupts interrupts;
    private final PrintStream progress;
    private final AtomicLong cursor = new AtomicLong();
    private final AtomicLongArray doneMap;
    private final AtomicLong fullIn = new AtomicLong();
    private final AtomicLong partialIn = new AtomicLong();
    private final AtomicLong fullOut = new AtomicLong();
    private final AtomicLong partialOut = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong mismatches = new AtomicLong();
    private final AtomicLong firstMismatch = new AtomicLong(Long.MAX_VALUE);
    private final AtomicReference<String> error = new AtomicReference<>();
    private volatile boolean stop;
    /** When the last job thread ended: the phase's elapsed time ends there, not at the next progress poll. */
    private final AtomicLong lastJobEnd = new AtomicLong(Long.MIN_VALUE);
    /** Time source in nanoseconds; tests replace it. */
    java.util.function.LongSupplier clock = System::nanoTime;

    public CopyRunner(Phase phase, BlockDevice src, BlockDevice dst, CopyPlan plan, Interrupts interrupts,
                      PrintStream progress) {
        this(phase, VerifyMethod.COMPARE, src, dst, plan, interrupts, progress);
    }

    /** @param method how a VERIFY phase checks (resolved: {@link VerifyCmd#resolve}); ignored by other phases */
    public CopyRunner(Phase phase, VerifyMethod method, BlockDevice src, BlockDevice dst, CopyPlan plan,
                      Interrupts interrupts, PrintStream progress) {
        this.phase = phase;
        this.method = method;
        this.src = src;
        this.dst = dst;
        this.plan = plan;
        this.interrupts = interrupts;
        this.progress = progress;
        this.doneMap = new AtomicLongArray((int) ((plan.chunks() + 63) / 64));
    }

    public PhaseResult run() throws InterruptedException {
        long start = clock.getAsLong();
        List<Thread> threads = new ArrayList<>();
        for (int j = 0; j < plan.numjobs(); j++) {
            CopyJob job = new CopyJob(this, phase, method, src, dst, plan);
            threads.add(Thread.ofPlatform().daemon().name(phase.verb + "-" + j).start(() -> {
                try {
                    job.run();
                } finally {
                    lastJobEnd.accumulateAndGet(clock.getAsLong(), Math::max);
                }
            }));
        }
        int second = 0;
        while (anyAlive(threads)) {
            if (interrupts.awaitStop(200, TimeUnit.MILLISECONDS)) {
                stop = true;
            }
            long now = clock.getAsLong();
            if (progress != null && now - start >= (second + 1) * 1_000_000_000L) {
                second++;
                long b = bytes.get();
                progress.printf(Locale.ROOT, "[%4ds] %s %s of %s (%d%%), %s/s%n", second, phase.verb,
                        Sizes.formatBytes(b), Sizes.formatBytes(plan.bytes()),
                        plan.bytes() == 0 ? 100 : b * 100 / plan.bytes(), Sizes.formatBytes(b / ((now - start) / 1e9)));
            }
        }
        for (Thread t : threads) {
            t.join();
        }
        long m = mismatches.get();
        // The join above orders every job's lastJobEnd update before this read. The poll loop wakes up to 200 ms
        // after the jobs end; timing to it made short phases look slower than they were.
        long elapsed = lastJobEnd.get() - start;
        return new PhaseResult(phase, phase == Phase.VERIFY ? method : null, src.logicalBlockSize(), fullIn.get(),
                partialIn.get(), fullOut.get(), partialOut.get(), bytes.get(), contiguous(), elapsed,
                m, m == 0 ? -1 : firstMismatch.get(), error.get(), stop && error.get() == null);
    }

    private static boolean anyAlive(List<Thread> threads) {
        for (Thread t : threads) {
            if (t.isAlive()) {
                return true;
            }
        }
        return false;
    }

    /** The next chunk to start, or -1 when the range is exhausted or the run is stopping. */
    long nextChunk() {
        if (stop || error.get() != null) {
            return -1;
        }
        long c = cursor.getAndIncrement();
        return c < plan.chunks() ? c : -1;
    }

    void recordIn(int len) {
        (len == plan.chunk() ? fullIn : partialIn).incrementAndGet();
    }

    void recordOut(int len) {
        (len == plan.chunk() ? fullOut : partialOut).incrementAndGet();
    }

    void chunkDone(long chunk, int len) {
        bytes.addAndGet(len);
        doneMap.getAndUpdate((int) (chunk >>> 6), w -> w | 1L << (chunk & 63));
    }

    void mismatch(long byteOffset) {
        mismatches.incrementAndGet();
        firstMismatch.accumulateAndGet(byteOffset, Math::min);
    }

    void fail(String what) {
        error.compareAndSet(null, what);
    }

    /** The first failure recorded, or null. */
    String error() {
        return error.get();
    }

    /** Bytes from the start of the range that are all done (chunks complete out of order). */
    private long contiguous() {
        long chunks = plan.chunks();
        long c = 0;
        while (c < chunks && (doneMap.get((int) (c >>> 6)) & 1L << (c & 63)) != 0) {
            c++;
        }
        return c == chunks ? plan.bytes() : c * plan.chunk();
    }
}
