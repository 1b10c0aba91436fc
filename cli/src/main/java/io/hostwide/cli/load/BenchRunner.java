package io.hostwide.cli.load;

import io.hostwide.cli.util.Interrupts;
import io.hostwide.management.util.Sizes;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/** Runs the jobs of one benchmark, prints a progress line each second, and collects the result. */
public final class BenchRunner {

    /**
     * Set by the runtime limit, Ctrl-C or a failing job; jobs stop issuing and drain. Also says whether the ramp
     * ({@code --ramp-time}) is over: jobs count what they reap from then on.
     */
    static final class StopFlag {
        private volatile boolean requested;
        private volatile boolean measuring;

        StopFlag(boolean measuring) {
            this.measuring = measuring;
        }

        void request() {
            requested = true;
        }

        boolean requested() {
            return requested;
        }

        /** The runner's thread, once, at the end of the ramp. */
        void startMeasuring() {
            measuring = true;
        }

        /** Whether completions count (no ramp, or the ramp is over). */
        boolean measuring() {
            return measuring;
        }
    }

    private final BenchTarget target;
    private final BenchSpec spec;
    private final Interrupts interrupts;
    private final PrintStream progress;
    /** When the last job thread ended: the run's elapsed time ends there, not when the wait for a tick returns. */
    private final java.util.concurrent.atomic.AtomicLong lastJobEnd = new java.util.concurrent.atomic.AtomicLong(Long.MIN_VALUE);
    /** Time source in nanoseconds for the run's start, ticks, deadline and end; tests replace it. */
    java.util.function.LongSupplier clock = System::nanoTime;
    /** Longest wait between checks for finished jobs, so a size-limited run returns soon after its last I/O. */
    private static final long POLL_NANOS = 50_000_000L;

    /** Per-second samples for a plot, or null when nobody asked for one (then jobs keep no interval histograms). */
    private final BenchTimeline timeline;

    /** @param progress where the per-second lines go, or null for none */
    public BenchRunner(BenchTarget target, BenchSpec spec, Interrupts interrupts, PrintStream progress) {
        this(target, spec, interrupts, progress, null);
    }

    /** @param timeline filled with one sample per second of the run, or null */
    public BenchRunner(BenchTarget target, BenchSpec spec, Interrupts interrupts, PrintStream progress,
                       BenchTimeline timeline) {
        this.target = target;
        this.spec = spec;
        this.interrupts = interrupts;
        this.progress = progress;
        this.timeline = timeline;
    }

    /**
     * Runs the jobs to the end: the ramp first, if any (its seconds print as "ramp" lines and count in no figure),
     * then the measured runtime or size. The result's elapsed time and CPU start where the ramp ends.
     */
    public BenchResult run() throws InterruptedException {
        StopFlag stop = new StopFlag(spec.rampNanos() == 0);
        List<BenchJob> jobs = new ArrayList<>();
        for (int i = 0; i < spec.numjobs(); i++) {
            jobs.add(new BenchJob(target, spec, i, stop, timeline != null));
        }
        List<Thread> threads = new ArrayList<>();
        long cpuStart = processCpuNanos();
        long start = clock.getAsLong();
        for (BenchJob job : jobs) {
            Thread t = new Thread(() -> {
                try {
                    job.run();
                } finally {
                    lastJobEnd.accumulateAndGet(clock.getAsLong(), Math::max);
                }
            }, "bench-job-" + job.index());
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        boolean ramping = !stop.measuring();
        long rampEnd = start + spec.rampNanos();
        long deadline = spec.runtimeNanos() == 0 ? Long.MAX_VALUE : rampEnd + spec.runtimeNanos();
        long[] last = new long[4];
        long lastAt = start;
        int second = 0;
        while (anyAlive(threads)) {
            long now = clock.getAsLong();
            long nextTick = start + (second + 1) * 1_000_000_000L;
            long wait = Math.min(Math.min(Math.min(nextTick, deadline), ramping ? rampEnd : Long.MAX_VALUE) - now,
                    POLL_NANOS);
            if (wait > 0 && interrupts.awaitStop(wait, TimeUnit.NANOSECONDS)) {
                stop.request();
                break;
            }
            now = clock.getAsLong();
            if (now >= deadline) {
                stop.request();
                break;
            }
            if (now >= nextTick) {
                second++;
                lastAt = tick(jobs, second, last, start, lastAt, now, true, ramping);
            }
            if (ramping && now >= rampEnd) {
                // The measured run starts here: its seconds, its CPU and (in the jobs) its counts and latencies.
                ramping = false;
                cpuStart = processCpuNanos();
                stop.startMeasuring();
                start = now;
                second = 0;
                lastAt = now;
                snapshot(jobs, last);
            }
        }
        for (Thread t : threads) {
            t.join();
        }
        long cpuEnd = processCpuNanos();
        if (ramping) {   // stopped (Ctrl-C, a failing job) before the ramp ended: nothing was measured
            cpuStart = -1;
            start = Math.max(start, lastJobEnd.get());
        }
        // The joins order every job's lastJobEnd update before this read. Timing to the return of the tick wait
        // made a size-limited run that ended early look up to a second long.
        long elapsed = Math.max(0, lastJobEnd.get() - start);
        if (timeline != null && !ramping) { // the last, partial second: a short run still has one, no I/O left out
            tick(jobs, second, last, start, lastAt, Math.max(start + elapsed, lastAt + 1), false, false);
        }
        for (BenchJob job : jobs) {
            if (job.failure != null) {
                throw new IllegalStateException("job " + job.index() + " failed: " + job.failure, job.failure);
            }
        }
        return collect(jobs, elapsed, interrupts.stopRequested(),
                cpuStart < 0 || cpuEnd < 0 ? -1 : cpuEnd - cpuStart);
    }

    /** The jobs' counts so far (all I/Os, the ramp's too), as {@link #tick} keeps them in {@code last}. */
    private static void snapshot(List<BenchJob> jobs, long[] last) {
        java.util.Arrays.fill(last, 0);
        for (BenchJob j : jobs) {
            last[0] += j.readIos.get();
            last[1] += j.readBytes.get();
            last[2] += j.writeIos.get();
            last[3] += j.writeBytes.get();
        }
    }

    /** User + system CPU of this process so far (all threads), or -1 where the JVM does not report it. */
    static long processCpuNanos() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            long t = os.getProcessCpuTime();
            return t >= 0 ? t : -1;
        }
        return -1;
    }

    private static boolean anyAlive(List<Thread> threads) {
        for (Thread t : threads) {
            if (t.isAlive()) {
                return true;
            }
        }
        return false;
    }

    /**
     * One interval's rates: into the timeline (if any, and not in the ramp) and, when {@code print}, as a progress
     * line ("[ramp 1s]" in the ramp, whose seconds count from the start, the measured ones from the ramp's end).
     */
    private long tick(List<BenchJob> jobs, int second, long[] last, long start, long lastAt, long now,
                      boolean print, boolean ramp) {
        long ri = 0, rb = 0, wi = 0, wb = 0;
        for (BenchJob j : jobs) {
            ri += j.readIos.get();
            rb += j.readBytes.get();
            wi += j.writeIos.get();
            wb += j.writeBytes.get();
        }
        double secs = (now - lastAt) / 1e9;
        // the end's interval only when it holds something: no 1 ns "second" at 0 IOPS after the last whole one
        if (timeline != null && !ramp && (print || ri != last[0] || wi != last[2] || now - lastAt > 1_000_000)) {
            timeline.sample((now - start) / 1e9, ri - last[0], wi - last[2], (ri - last[0]) / secs,
                    (rb - last[1]) / secs, (wi - last[2]) / secs, (wb - last[3]) / secs, jobs);
        }
        if (print && progress != null) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, ramp ? "[ramp %ds]" : "[%4ds]", second));
            if (ri > 0 || wi == 0) {
                line.append(String.format(Locale.ROOT, " read %s IOPS %s/s", Sizes.formatCount((ri - last[0]) / secs),
                        Sizes.formatBytes((rb - last[1]) / secs)));
            }
            if (wi > 0) {
                line.append(String.format(Locale.ROOT, " write %s IOPS %s/s", Sizes.formatCount((wi - last[2]) / secs),
                        Sizes.formatBytes((wb - last[3]) / secs)));
            }
            progress.println(line);
        }
        last[0] = ri;
        last[1] = rb;
        last[2] = wi;
        last[3] = wb;
        return now;
    }

    private BenchResult collect(List<BenchJob> jobs, long elapsedNanos, boolean interrupted, long cpuNanos) {
        Histogram read = new Histogram(3_600_000_000_000L, 3);
        Histogram write = new Histogram(3_600_000_000_000L, 3);
        long rb = 0, wb = 0, errors = 0, all = 0;
        for (BenchJob j : jobs) {
            read.add(j.readLatency);
            write.add(j.writeLatency);
            rb += j.measuredReadBytes;
            wb += j.measuredWriteBytes;
            errors += j.errors.get();
            all += j.readIos.get() + j.writeIos.get();
        }
        long rampIos = all - read.getTotalCount() - write.getTotalCount();
        return new BenchResult(target.description(), spec, elapsedNanos,
                BenchResult.Direction.of(read, rb, elapsedNanos),
                BenchResult.Direction.of(write, wb, elapsedNanos),
                errors, interrupted, cpuNanos, rampIos);
    }
}
