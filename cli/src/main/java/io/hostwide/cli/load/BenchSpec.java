package io.hostwide.cli.load;

/**
 * A validated workload.
 *
 * @param sizePerJob   bytes each job transfers before it stops, or 0 for no limit
 * @param runtimeNanos wall-clock limit, or 0 for none (then sizePerJob is set)
 * @param poll         jobs reap their completions themselves while they wait ({@code blk_poll}, fio's
 *                     {@code hipri}) where the device can be polled
 * @param rampNanos    how long the workload runs before anything is counted (fio's {@code ramp_time}), 0 for no
 *                     ramp: its I/Os are in no figure of the result, the runtime and the size start after it
 */
public record BenchSpec(RwMode rw, int readPercent, int blockSize, int iodepth, int numjobs,
                        long runtimeNanos, long sizePerJob, long seed, boolean poll, long rampNanos) {

    /** A workload without a ramp. */
    public BenchSpec(RwMode rw, int readPercent, int blockSize, int iodepth, int numjobs, long runtimeNanos,
                     long sizePerJob, long seed, boolean poll) {
        this(rw, readPercent, blockSize, iodepth, numjobs, runtimeNanos, sizePerJob, seed, poll, 0);
    }

    /** A workload whose jobs wait for their completions (no polling). */
    public BenchSpec(RwMode rw, int readPercent, int blockSize, int iodepth, int numjobs, long runtimeNanos,
                     long sizePerJob, long seed) {
        this(rw, readPercent, blockSize, iodepth, numjobs, runtimeNanos, sizePerJob, seed, false, 0);
    }

    public BenchSpec {
        if (blockSize <= 0 || blockSize % 512 != 0) {
            throw new IllegalArgumentException("--bs: " + blockSize + " is not a positive multiple of 512");
        }
        if (iodepth < 1 || iodepth > 65536) {
            throw new IllegalArgumentException("--iodepth: " + iodepth + " is out of range (1..65536)");
        }
        if (numjobs < 1 || numjobs > 1024) {
            throw new IllegalArgumentException("--numjobs: " + numjobs + " is out of range (1..1024)");
        }
        if (readPercent < 0 || readPercent > 100) {
            throw new IllegalArgumentException("--rwmixread: " + readPercent + " is out of range (0..100)");
        }
        if (runtimeNanos < 0 || sizePerJob < 0 || (runtimeNanos == 0 && sizePerJob == 0)) {
            throw new IllegalArgumentException("--runtime/--size: give a positive runtime or size");
        }
        if (rampNanos < 0) {
            throw new IllegalArgumentException("--ramp-time: " + rampNanos + " ns is negative");
        }
        if (sizePerJob > 0 && sizePerJob < blockSize) {
            throw new IllegalArgumentException("--size: " + sizePerJob + " is smaller than --bs " + blockSize);
        }
    }
}
