package io.hostwide.cli.lab;

/** One named experiment of {@code hostwide lab}: re-runs a seed thread's measurement on this implementation. */
interface Experiment {

    String name();

    /** One line for {@code --list}. */
    String summary();

    /** Default emulated command latency (scsi_debug {@code ndelay}, ns) when {@code --ndelay} is not given. */
    long defaultNdelayNanos();

    /**
     * Runs every cell (stopping early, with the rows measured so far, when Ctrl-C arrives) and returns the
     * report. Emulated devices are created and closed inside.
     */
    LabReport run(LabRun run) throws InterruptedException;
}
