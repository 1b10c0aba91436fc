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
 * Ctrl-C state shared with {@link BenchRunner}.
 *
 * @param cellNanos  wall-clock time of each measured cell
 * @param ndelayNanos emulated command latency (scsi_debug {@code ndelay}), or -1 for the experiment's default
 * @param progress   one line per finished cell, or null
 */
record LabRun(long cellNanos, long ndelayNanos, boolean quick, Interrupts interrupts, PrintStream progress) {

    boolean stopped() {
        return interrupts.stopRequested();
    }

    long ndelayOr(long dflt) {
        return ndelayNanos >= 0 ? ndelayNanos : dflt;
    }

    /** One cell: {@code numjobs} jobs of {@code rw}/{@code bs}/{@code iodepth} for {@link #cellNanos}. */
    BenchResult cell(BenchTarget target, String rw, int bs, int iodepth, int numjobs) throws InterruptedException {
        RwMode mode = RwMode.parse(rw);
        int readPercent = mode.fioName().contains("write") ? 0 : 100;   // the lab drives pure reads or writes
        BenchSpec spec = new BenchSpec(mode, readPercent, bs, iodepth, numjobs, cellNanos, 0, 1);
        return new BenchRunner(target, spec, interrupts, null).run();
    }

    void note(String line) {
        if (progress != null) {
            progress.println(line);
            progress.flush();
        }
    }
}
