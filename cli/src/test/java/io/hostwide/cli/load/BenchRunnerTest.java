package io.hostwide.cli.load;

import io.hostwide.cli.util.Interrupts;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BenchRunnerTest {

    private static BenchSpec spec(RwMode rw, int readPct, int iodepth, int jobs, long sizePerJob) {
        return new BenchSpec(rw, readPct, 4096, iodepth, jobs, 0, sizePerJob, 7);
    }

    @Test
    void sizeLimitedRunTransfersExactlyTheSizeInline() throws Exception {
        var target = new FakeTargets.Recording(64L << 20);
        BenchResult r = new BenchRunner(target, spec(RwMode.RANDREAD, 100, 16, 2, 4L << 20),
                Interrupts.none(), null).run();
        assertThat(r.read().ios()).isEqualTo(2 * 1024);
        assertThat(r.read().bytes()).isEqualTo(2 * (4L << 20));
        assertThat(r.write().ios()).isZero();
        assertThat(target.reads.get()).isEqualTo(2048);
        assertThat(target.misaligned).isFalse();
        assertThat(r.errors()).isZero();
        assertThat(r.read().p50()).isPositive();
        assertThat(r.read().max()).isGreaterThanOrEqualTo(r.read().p999());
    }

    /**
     * Regression: a size-limited run's elapsed time ended when the wait for the next progress tick returned (up to
     * a second after the last I/O), so its IOPS were far too low. Here the jobs' clock reads 8 ms, the main's 0.
     */
    @Test
    void elapsedTimeEndsWhenTheLastJobEndsNotAtTheNextTick() throws Exception {
        var target = new FakeTargets.Recording(64L << 20);
        BenchRunner runner = new BenchRunner(target, spec(RwMode.RANDREAD, 100, 4, 2, 1L << 20), Interrupts.none(), null);
        runner.clock = () -> Thread.currentThread().getName().startsWith("bench-job-") ? 8_000_000L : 0L;
        BenchResult r = runner.run();
        assertThat(r.elapsedNanos()).isEqualTo(8_000_000L);
        assertThat(r.read().ios()).isEqualTo(512);
        assertThat(r.read().iops()).isCloseTo(64_000.0, org.assertj.core.data.Offset.offset(0.01));
    }

    /**
     * Completions reaped together are re-issued as one batch (a plug), and a batch never grows past the I/O depth even
     * when every I/O completes inside its own submit call (inline), which would otherwise feed the batch forever.
     */
    @Test
    void reissuesGoOutInBatchesBoundedByTheDepth() throws Exception {
        var target = new FakeTargets.Batching(64L << 20);
        BenchResult r = new BenchRunner(target, spec(RwMode.RANDREAD, 100, 8, 1, 4L << 20), Interrupts.none(), null)
                .run();
        assertThat(r.read().ios()).isEqualTo(1024);
        assertThat(target.outside).as("only the first fill is outside a batch").isEqualTo(8);
        assertThat(target.unbalanced).isFalse();
        assertThat(target.largest).isBetween(2, 8);
        assertThat(target.batches).isGreaterThanOrEqualTo((1024 - 8) / 8);
    }

    @Test
    void cpuPerIoIsTheProcessCpuOfTheRunOverBothDirections() throws Exception {
        var d = new BenchResult.Direction(3, 3 * 4096, 3, 3 * 4096, 1, 1, 1, 1, 1);
        var spec = spec(RwMode.RANDRW, 50, 1, 1, 4096);
        BenchResult six = new BenchResult("x", spec, 1_000_000_000L, d, d, 0, false, 6_000);
        assertThat(six.cpuNanosPerIo()).isEqualTo(1000);
        assertThat(six.toText()).contains("1.00 us per I/O");
        assertThat(new BenchResult("x", spec, 1_000_000_000L, d, d, 0, false, -1).cpuNanosPerIo()).isEqualTo(-1);
        assertThat(new BenchResult("x", spec, 1_000_000_000L, d, d, 0, false, -1).toTree()).doesNotContainKey("cpu");
        var none = new BenchResult.Direction(0, 0, 0, 0, 0, 0, 0, 0, 0);
        assertThat(new BenchResult("x", spec, 1, none, none, 0, false, 5).cpuNanosPerIo()).isEqualTo(-1);

        BenchResult r = new BenchRunner(new FakeTargets.Recording(64L << 20), spec(RwMode.RANDREAD, 100, 4, 1, 4L << 20),
                Interrupts.none(), null).run();
        // measured (HotSpot on Linux reports it), though a run this short may round to 0 ticks
        assertThat(r.cpuNanos()).as("process CPU of the run").isNotNegative();
        assertThat(r.toTree()).containsKey("cpu");
    }

    @Test
    void asyncCompletionsKeepIodepthInFlightAndLoseNothing() throws Exception {
        var target = new FakeTargets.Async(64L << 20);
        try {
            BenchResult r = new BenchRunner(target, spec(RwMode.RANDWRITE, 0, 8, 3, 2L << 20),
                    Interrupts.none(), null).run();
            assertThat(r.write().ios()).isEqualTo(3 * 512);
            assertThat(target.writes.get()).isEqualTo(3 * 512);
            assertThat(target.maxInFlight.get()).isLessThanOrEqualTo(3 * 8);
            assertThat(target.inFlight.get()).isZero();
        } finally {
            target.close();
        }
    }

    /**
     * Regression (issue 11): a completion the job's ring could not take was thrown on the device's completion
     * thread, where nothing reported it, and the job went on with its count of I/Os in flight wrong. Here the
     * device completes each I/O five times into a ring of four: the run must fail, naming the cause.
     */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void aCompletionTheRingCannotTakeFailsTheRunWithTheReason() {
        var target = new FakeTargets.OverCompleting(64L << 20, 5);
        try {
            BenchRunner runner = new BenchRunner(target, spec(RwMode.RANDREAD, 100, 4, 1, 1L << 20),
                    Interrupts.none(), null);
            assertThatThrownBy(runner::run).hasMessageContaining("job 0 failed")
                    .hasMessageContaining("more completions than slots in job 0");
        } finally {
            target.close();
        }
    }

    /**
     * --poll: a job reaps its completions by polling the device on its own thread (a device that completes nothing by
     * itself would otherwise hang the run); while the device refuses polls (-1) it waits for callbacks from another
     * thread as without --poll, and loses nothing either way.
     */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void aPolledJobReapsOnItsOwnThreadAndFallsBackWhenRefused() throws Exception {
        var target = new FakeTargets.Polled(64L << 20, 20);
        try {
            BenchSpec spec = new BenchSpec(RwMode.RANDREAD, 100, 4096, 4, 1, 0, 2L << 20, 7, true);
            BenchResult r = new BenchRunner(target, spec, Interrupts.none(), null).run();
            assertThat(r.read().ios()).isEqualTo(512);
            assertThat(r.errors()).isZero();
            assertThat(target.pollOnForeignThread).isFalse();
            assertThat(target.polledCompletions.get()).as("completions reaped by polling").isPositive();
            assertThat(target.refusals.get()).as("every refusal was met").isNegative();
        } finally {
            target.close();
        }
    }

    @Test
    void sequentialJobsWalkDisjointSlicesAndWrap() throws Exception {
        var target = new FakeTargets.Recording(1L << 20); // 256 blocks of 4 KiB
        BenchResult r = new BenchRunner(target, spec(RwMode.READ, 100, 4, 2, 2L << 20), Interrupts.none(), null).run();
        assertThat(r.read().ios()).isEqualTo(1024);
        assertThat(target.offsets).hasSize(256); // every block of the device, no out-of-range offset
        assertThat(target.misaligned).isFalse();
    }

    @Test
    void mixedRunHonoursTheReadPercentage() throws Exception {
        var target = new FakeTargets.Recording(64L << 20);
        BenchResult r = new BenchRunner(target, spec(RwMode.RANDRW, 70, 16, 1, 40L << 20), Interrupts.none(), null).run();
        double reads = r.read().ios() / (double) (r.read().ios() + r.write().ios());
        assertThat(reads).isBetween(0.66, 0.74);
    }

    @Test
    void failedIosAreCountedNotTimed() throws Exception {
        var target = new FakeTargets.Recording(64L << 20);
        target.failEvery7th = true;
        BenchResult r = new BenchRunner(target, spec(RwMode.RANDREAD, 100, 4, 1, 7 * 4096L * 10), Interrupts.none(), null).run();
        assertThat(r.errors()).isEqualTo(10);
        assertThat(r.read().ios()).isEqualTo(60);
    }

    @Test
    void stopRequestEndsARuntimeRunAndDrains() throws Exception {
        var target = new FakeTargets.Async(64L << 20);
        try {
            Interrupts in = Interrupts.none();
            BenchSpec spec = new BenchSpec(RwMode.RANDREAD, 100, 4096, 8, 2, 3_600_000_000_000L, 0, 1);
            Thread stopper = new Thread(() -> {
                try {
                    Thread.sleep(200);
                } catch (InterruptedException ignored) {
                    return;
                }
                in.requestStop();
            });
            stopper.start();
            BenchResult r = new BenchRunner(target, spec, in, null).run();
            assertThat(r.interrupted()).isTrue();
            assertThat(r.read().ios()).isPositive();
            assertThat(target.inFlight.get()).isZero();
        } finally {
            target.close();
        }
    }

    /**
     * --ramp-time (fio's ramp_time): the workload runs first without counting. Here the runner's clock jumps past the
     * ramp once the device has seen 2000 I/Os (more than the size: the ramp is not bounded by it), so the ramp surely
     * ran; the size then counts from the ramp's end, and the result holds exactly the I/Os issued after it.
     */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void theRampRunsTheWorkloadButOnlyWhatFollowsItCounts() throws Exception {
        var target = new FakeTargets.Recording(64L << 20);
        BenchSpec spec = new BenchSpec(RwMode.RANDREAD, 100, 4096, 4, 2, 0, 1L << 20, 7, false, 5_000_000_000L);
        BenchRunner runner = new BenchRunner(target, spec, Interrupts.none(), null);
        runner.clock = () -> target.reads.get() >= 2000 ? 10_000_000_000L : 0L;
        BenchResult r = runner.run();
        assertThat(r.read().ios()).as("the size, after the ramp").isEqualTo(2 * 256);
        assertThat(r.read().bytes()).isEqualTo(2 * (1L << 20));
        assertThat(target.reads.get()).as("the ramp's I/Os reached the device").isGreaterThanOrEqualTo(2000 + 2 * 256);
        assertThat(r.errors()).isZero();
        assertThat(r.toTree()).containsEntry("ramp_ns", 5_000_000_000L)
                .containsEntry("ramp_ios", target.reads.get() - 2 * 256);
        assertThat(r.toText()).contains("after a 5.00s ramp (not counted)");
    }

    /** The ramp's seconds print as "ramp" progress lines; the timeline (--plot) starts after it. */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void rampSecondsPrintAsRampLinesAndStayOutOfTheTimeline() throws Exception {
        var target = new FakeTargets.Async(64L << 20);
        try {
            var bytes = new java.io.ByteArrayOutputStream();
            var progress = new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8);
            BenchSpec spec = new BenchSpec(RwMode.RANDREAD, 100, 4096, 4, 1, 100_000_000L, 0, 7, false,
                    1_100_000_000L);
            BenchTimeline timeline = new BenchTimeline();
            BenchResult r = new BenchRunner(target, spec, Interrupts.none(), progress, timeline).run();
            assertThat(bytes.toString(java.nio.charset.StandardCharsets.UTF_8)).contains("[ramp 1s] read ");
            assertThat(r.read().ios()).isPositive();
            assertThat(timeline.samples()).isNotEmpty();
            assertThat(timeline.samples().get(0).at()).as("seconds count from the ramp's end")
                    .isLessThan(r.elapsedNanos() / 1e9 + 1e-3);
        } finally {
            target.close();
        }
    }

    @Test
    void invalidSpecsNameTheOption() {
        assertThatThrownBy(() -> new BenchSpec(RwMode.READ, 100, 1000, 1, 1, 1, 0, 1)).hasMessageStartingWith("--bs:");
        assertThatThrownBy(() -> new BenchSpec(RwMode.READ, 100, 4096, 0, 1, 1, 0, 1)).hasMessageStartingWith("--iodepth:");
        assertThatThrownBy(() -> new BenchSpec(RwMode.READ, 100, 4096, 1, 0, 1, 0, 1)).hasMessageStartingWith("--numjobs:");
        assertThatThrownBy(() -> new BenchSpec(RwMode.RANDRW, 101, 4096, 1, 1, 1, 0, 1)).hasMessageStartingWith("--rwmixread:");
        assertThatThrownBy(() -> new BenchSpec(RwMode.READ, 100, 4096, 1, 1, 1, 0, 1, false, -1))
                .hasMessageStartingWith("--ramp-time:");
        assertThatThrownBy(() -> RwMode.parse("sideways")).hasMessageStartingWith("--rw: unknown mode 'sideways'");
    }
}
