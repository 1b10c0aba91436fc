package io.hostwide.cli.lab;

import io.hostwide.cli.load.BenchResult;
import io.hostwide.cli.load.BenchRunner;
import io.hostwide.cli.load.BenchSpec;
import io.hostwide.cli.load.BenchTarget;
import io.hostwide.cli.load.RwMode;
import io.hostwide.cli.util.Interrupts;

import java.io.PrintStream;

/**
 * How one experiment is run: the time per cell, the emulated command latency, where progress goes, and the
 * Ctrl-C state shared with {@link BenchRunner}. Every cell is preceded by an unreported ramp of the same workload
 * on the same devices (fio's {@code ramp_time}): a long one before the first cell, so JIT compilation (several
 * seconds on a loaded 2-core machine now that an I/O costs a few microseconds) does not land in the first cells
 * only, and a short one before each later cell, so queues and tag waiters reach their steady state before the
 * counters are read.
 */
final class LabRun {

    private final long cellNanos;
    private final int repeat;
    private final long ndelayNanos;
    private final boolean quick;
    private final Interrupts interrupts;
    private final PrintStream progress;
    private boolean warmed;

    /**
     * @param cellNanos   wall-clock time of each measured cell
     * @param repeat      how many times each cell is measured (in rounds over all cells, so a drift in the
     *                    machine's load reaches every cell alike); the table and the verdict use the medians
     * @param ndelayNanos emulated command latency (scsi_debug {@code ndelay}), or -1 for the experiment's default
     * @param progress    one line per finished cell, or null
     */
    LabRun(long cellNanos, int repeat, long ndelayNanos, boolean quick, Interrupts interrupts, PrintStream progress) {
        if (repeat < 1) {
            throw new IllegalArgumentException("repeat must be at least 1, got " + repeat);
        }
        this.cellNanos = cellNanos;
        this.repeat = repeat;
        this.ndelayNanos = ndelayNanos;
        this.quick = quick;
        this.interrupts = interrupts;
        this.progress = progress;
    }

    long cellNanos() {
        return cellNanos;
    }

    int repeat() {
        return repeat;
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

    /** Ramp before the first cell of a run: long enough for the JIT to compile the I/O path. */
    static final long FIRST_RAMP_NANOS = 3_000_000_000L;
    static final long FIRST_RAMP_QUICK_NANOS = 2_000_000_000L;
    /** Ramp before every later cell: the new devices' queues and waiters settle. */
    static final long RAMP_NANOS = 1_000_000_000L;
    static final long RAMP_QUICK_NANOS = 300_000_000L;

    /**
     * Before every cell: the same workload on the same devices, unreported (see the class comment for how long).
     * Call it before reading the counters the cell reports as deltas.
     */
    void warmUp(BenchTarget target, String rw, int bs, int iodepth, int numjobs) throws InterruptedException {
        long nanos = warmed ? (quick ? RAMP_QUICK_NANOS : RAMP_NANOS)
                : (quick ? FIRST_RAMP_QUICK_NANOS : FIRST_RAMP_NANOS);
        warmed = true;
        run(target, rw, bs, iodepth, numjobs, nanos);
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
