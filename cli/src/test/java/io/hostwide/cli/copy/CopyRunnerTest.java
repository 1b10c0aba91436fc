package io.hostwide.cli.copy;

import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDevices;
import io.hostwide.cli.Main;
import io.hostwide.cli.util.Interrupts;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

class CopyRunnerTest {

    private static final String MEM = "null:memory_backed=1,size=8,irqmode=1";

    private static BlockDevice dev() {
        return BlockDevices.open(MEM);
    }

    private static PhaseResult run(Phase p, BlockDevice a, BlockDevice b, CopyPlan plan) throws InterruptedException {
        return new CopyRunner(p, a, b, plan, Interrupts.none(), null).run();
    }

    @Test
    void fillCopyVerifyWithAPartialLastRecord() throws Exception {
        try (BlockDevice a = dev(); BlockDevice b = dev()) {
            // 1 MiB + 4 KiB in 48 KiB records: 21 full records and one partial of 28 KiB
            long bytes = (1 << 20) + 4096;
            CopyPlan plan = new CopyPlan(0, 4096, bytes, 48 * 1024, 4, 3, 7);
            assertThat(run(Phase.FILL, a, a, plan).ok()).isTrue();
            PhaseResult before = run(Phase.VERIFY, a, b, plan);
            assertThat(before.mismatches()).as("nothing copied yet: every chunk differs").isEqualTo(22);
            assertThat(before.firstMismatch()).isZero();
            PhaseResult copy = run(Phase.COPY, a, b, plan);
            assertThat(copy.fullIn()).isEqualTo(21);
            assertThat(copy.partialIn()).isEqualTo(1);
            assertThat(copy.fullOut()).isEqualTo(21);
            assertThat(copy.partialOut()).isEqualTo(1);
            assertThat(copy.bytes()).isEqualTo(bytes);
            assertThat(copy.contiguousBytes()).isEqualTo(bytes);
            PhaseResult after = run(Phase.VERIFY, a, b, plan);
            assertThat(after.ok()).isTrue();
            assertThat(after.mismatches()).isZero();
        }
    }

    /** A failed request is named: which side, which operation, the byte offset on that device, what it means. */
    @Test
    void anIoErrorNamesTheRequestTheDeviceAndTheOffset() throws Exception {
        // every 4th request of the destination is never completed: its timeout (100 ms) ends it with TIMEOUT
        try (BlockDevice a = dev();
             BlockDevice b = BlockDevices.open("null:memory_backed=1,size=8,irqmode=1,timeout=4,io_timeout=100")) {
            CopyPlan plan = new CopyPlan(0, 8192, 1 << 20, 64 * 1024, 1, 1, 7);
            PhaseResult copy = run(Phase.COPY, a, b, plan);
            assertThat(copy.ok()).isFalse();
            assertThat(copy.error()).matches("write of the destination failed at byte \\d+ \\(chunk \\d+, 65536 "
                    + "bytes\\): no answer in time \\(TIMEOUT.*");
            long chunk = Long.parseLong(copy.error().replaceAll(".*\\(chunk (\\d+),.*", "$1"));
            assertThat(copy.error()).contains("at byte " + (8192 + chunk * 64 * 1024) + " ");
        }
    }

    @Test
    void aStopRequestFinishesStartedChunksAndReportsTheDonePrefix() throws Exception {
        // 1024 chunks, 2 in flight, 1 ms each: about 0.5 s of copying. The stop comes once a few chunks have
        // landed (not after a fixed sleep, which a loaded machine can stretch past the whole copy).
        try (BlockDevice a = BlockDevices.open("null:memory_backed=1,size=64,irqmode=2,completion_nsec=1000000");
             BlockDevice b = BlockDevices.open("null:memory_backed=1,size=64")) {
            CopyPlan plan = new CopyPlan(0, 0, 64L << 20, 64 * 1024, 2, 1, 1);
            Interrupts in = Interrupts.none();
            Thread.ofPlatform().start(() -> {
                long until = System.nanoTime() + 30_000_000_000L;
                while (b.queue().snapshot().completed() < 4 && System.nanoTime() < until) {
                    LockSupport.parkNanos(200_000);
                }
                in.requestStop();
            });
            PhaseResult r = new CopyRunner(Phase.COPY, a, b, plan, in, null).run();
            assertThat(r.interrupted()).isTrue();
            assertThat(r.bytes()).isPositive().isLessThan(64L << 20);
            assertThat(r.contiguousBytes()).isLessThanOrEqualTo(r.bytes());
            assertThat(r.toText()).contains("interrupted; the first " + r.contiguousBytes() + " bytes");
        }
    }

    /**
     * Regression: the elapsed time (and so MiB/s) ended at the next 200 ms progress poll, not when the last job
     * finished, so every short phase reported about 0.2 s. Here the jobs' clock reads 5 ms and the main thread's 0.
     */
    @Test
    void elapsedTimeEndsWhenTheLastJobEndsNotAtTheNextProgressPoll() throws Exception {
        try (BlockDevice a = dev(); BlockDevice b = dev()) {
            CopyRunner r = new CopyRunner(Phase.COPY, a, b, new CopyPlan(0, 0, 1 << 20, 64 * 1024, 2, 2, 1),
                    Interrupts.none(), null);
            r.clock = () -> Thread.currentThread().getName().startsWith("copy-") ? 5_000_000L : 0L;
            PhaseResult result = r.run();
            assertThat(result.ok()).isTrue();
            assertThat(result.elapsedNanos()).isEqualTo(5_000_000L);
            assertThat(result.toText()).contains("1048576 bytes in 0.01 s, 200.0 MiB/s");
        }
    }

    /**
     * Regression (issue 11): a completion the job's ring had no room for was dropped without a word
     * ({@code done.offer(s)} unchecked), so a device that completed a request twice made the copy take steps on
     * stray completions or wait for one that was gone. The ring holds every completion a slot can have out, so
     * stray ones are the only way to fill it; here they arrive before the job starts, as from a broken device.
     * The job must end at once with the reason as the phase's error.
     */
    @Test
    void aCompletionTheRingCannotTakeFailsTheJobWithTheReason() throws Exception {
        try (BlockDevice a = dev(); BlockDevice b = dev()) {
            CopyPlan plan = new CopyPlan(0, 0, 1 << 20, 64 * 1024, 1, 1, 1);
            CopyRunner runner = new CopyRunner(Phase.COPY, a, b, plan, Interrupts.none(), null);
            CopyJob job = new CopyJob(runner, Phase.COPY, VerifyMethod.COMPARE, a, b, plan);
            int room = new io.hostwide.cli.util.MpscIntRing(2 * plan.iodepth() + 1).capacity();
            for (int i = 0; i <= room; i++) {
                job.onComplete(0, io.hostwide.blk.BlkStatus.OK);
            }
            assertThat(runner.error()).as("nothing reported before the job runs").isNull();
            job.run();
            assertThat(runner.error()).contains("completion of slot 0 (OK) could not be handed to its job")
                    .contains("a request completed twice");
        }
    }

    @Test
    void badGeometryIsRefusedBeforeAnyIo() {
        String[][] cases = {
            {"--from", "null:bs=4096,size=8", "--to", "null:bs=512,size=8"},
            {"--from", "null:size=8", "--to", "null:size=4"},
            {"--from", "null:size=8", "--to", "null:size=8", "--bs", "1000"},
            {"--from", "null:size=8", "--to", "null:size=8", "--count", "1000"},
            {"--from", "nosuch", "--to", "null"},
        };
        String[] expect = {"different block sizes", "the destination has", "--bs:", "--count:", "--from:"};
        for (int i = 0; i < cases.length; i++) {
            CommandLine cl = Main.commandLine();
            StringWriter err = new StringWriter();
            cl.setErr(new PrintWriter(err, true));
            cl.setOut(new PrintWriter(new StringWriter(), true));
            String[] args = new String[cases[i].length + 1];
            args[0] = "copy";
            System.arraycopy(cases[i], 0, args, 1, cases[i].length);
            assertThat(cl.execute(args)).as(String.join(" ", cases[i])).isEqualTo(2);
            assertThat(err.toString()).as(String.join(" ", cases[i])).contains(expect[i]).doesNotContain("\tat ");
        }
    }
}
