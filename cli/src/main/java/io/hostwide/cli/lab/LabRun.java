package io.hostwide.cli.lab;

import io.hostwide.cli.bench.BenchResult;
import io.hostwide.cli.bench.BenchRunner;
import io.hostwide.cli.bench.BenchSpec;
import io.hostwide.cli.bench.BenchTarget;
import io.hostwide.cli.bench.RwMode;
import io.hostwide.cli.util.Interrupts;

import java.io.PrintStream;

/**
 * How one experiment is run: the time per cell, the emulated command latency, where progress goes, and the
 * Ctrl-C state shared with {@link BenchRunner}. The first cell of a run is preceded by an unreported warm-up
 * of the same workload, so JIT compilation does not land in the first cell only.
 */
final class LabRun {

    private final long cellNanos;
    private final long ndelayNanos;
    private final boolean quick;
    private final Interrupts interrupts;
    private final PrintStream progress;
    private boolean warmed;

    /**
     * @param cellNanos   wall-clock time of each measured cell
     * @param ndelayNanos emulated command latency (scsi_debug {@code ndelay}), or -1 for the experiment's default
     * @param progress    one line per finished cell, or null
     */
    LabRun(long cellNanos, long ndelayNanos, boolean quick, Interrupts interrupts, PrintStream progress) {
        this.cellNanos = cellNanos;
        this.ndelayNanos = ndelayNanos;
        this.quick = quick;
        this.interrupts = interrupts;
        this.progress = progress;
    }

    long cellNanos() {
        return cellNanos;
    }

    boolean quick() {
        return quick;
    }

    boolean stopped() {
        return interrupts.stopRequested();
    }

    long ndelayOr(long dflt) {
        return ndelayNanos >= 0 ? ndelayNanos : dflt;
    }

    /**
     * Before the first cell of the run only: the same workload, unreported, for 0.3 s (--quick) or 1 s. Call it
     * before reading the counters the cell reports as deltas.
     */
    void warmUp(BenchTarget target, String rw, int bs, int iodepth, int numjobs) throws InterruptedException {
        if (!warmed) {
            warmed = true;
            run(target, rw, bs, iodepth, numjobs, Math.min(cellNanos, quick ? 300_000_000L : 1_000_000_000L));
        }
    }

    /** One cell: {@code numjobs} jobs of {@code rw}/{@code bs}/{@code iodepth} for {@link #cellNanos}. */
    BenchResult cell(BenchTarget target, String rw, int bs, int iodepth, int numjobs) throws InterruptedException {
        return run(target, rw, bs, iodepth, numjobs, cellNanos);
    }

    private BenchResult run(BenchTarget target, String rw, int bs, int iodepth, int numjobs, long nanos)
            throws InterruptedException {
        RwMode mode = RwMode.parse(rw);
        int readPercent = mode.fioName().contains("write") ? 0 : 100;   // the lab drives pure reads or writes
        BenchSpec spec = new BenchSpec(mode, readPercent, bs, iodepth, numjobs, nanos, 0, 1);
        return new BenchRunner(target, spec, interrupts, null).run();
    }

    /**
     * CPU time of this whole process so far (every thread: jobs, kblockd workers, completion timers), or -1 when
     * the JVM cannot tell. Cells read it before and after to report CPU time per I/O.
     */
    static long processCpuNanos() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** CPU microseconds per I/O between two {@link #processCpuNanos} readings; -1 if unknown or no I/O. */
    static double cpuMicrosPerIo(long cpu0, long cpu1, long ios) {
        return cpu0 < 0 || cpu1 < 0 || ios <= 0 ? -1 : (cpu1 - cpu0) / 1e3 / ios;
    }

    void note(String line) {
        if (progress != null) {
            progress.println(line);
            progress.flush();
        }
    }
}
