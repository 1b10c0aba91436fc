package io.hostwide.cli.copy;

import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDevices;
import io.hostwide.cli.Main;
import io.hostwide.cli.util.Interrupts;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Issue 5's bad input for copy: clear one-line errors before any I/O, and Ctrl-C reporting how far it got. */
class CopyBadInputTest {

    @Test
    void impossibleDevicesAndGeometriesAreOneLineErrorsWithStatus2() {
        String[][] cases = {
            {"--from", "loop:nosuch=1", "--to", "null"},
            {"--from", "null:size=8", "--to", "debug:host_max_queue=300,max_queue=100"},
            {"--from", "debug:submit_queues=0", "--to", "null"},
            {"--from", "loop:nr_hw_queues=0", "--to", "null"},
            {"--from", "loop:can_queue=0", "--to", "null"},
            {"--from", "debug:max_queue=0", "--to", "null"},
            {"--from", "loop:size_mb=4,sector_size=4096", "--to", "loop:size_mb=4,sector_size=512", "--fill-source"},
            {"--from", "null:size=8", "--to", "null:size=4"},
            {"--from", "null:size=8", "--to", "null:size=8", "--seek", "16"},
        };
        String[][] expect = {
            {"--from:", "nosuch"}, {"--to:", "host_max_queue"}, {"--from:", "submit_queues"},
            {"--from:", "nr_hw_queues"}, {"--from:", "can_queue"}, {"--from:", "max_queue"},
            {"different block sizes", "4096 vs 512"},
            {"--to: the destination has 4194304 bytes but the copy needs 8388608; give --count"},
            {"needs 9437184 (1048576 skipped by --seek + 8388608); give --count"},
        };
        for (int i = 0; i < cases.length; i++) {
            CommandLine cl = Main.commandLine();
            StringWriter err = new StringWriter();
            StringWriter out = new StringWriter();
            cl.setErr(new PrintWriter(err, true));
            cl.setOut(new PrintWriter(out, true));
            String[] args = new String[cases[i].length + 1];
            args[0] = "copy";
            System.arraycopy(cases[i], 0, args, 1, cases[i].length);
            String what = String.join(" ", cases[i]);
            assertThat(cl.execute(args)).as(what).isEqualTo(2);
            assertThat(err.toString()).as(what).contains(expect[i]).doesNotContain("\tat ");
            assertThat(err.toString().strip().lines().count()).as(what + ": one line").isEqualTo(1);
            assertThat(out.toString()).as(what + ": no records moved").doesNotContain("records");
        }
    }

    @Test
    void differentBlockSizesAreRefusedBeforeTheFirstRequest() {
        RangeOptions r = new RangeOptions();
        r.from = "a";
        r.to = "b";
        r.bs = "64k";
        r.iodepth = 4;
        r.numjobs = 1;
        r.seed = 1;
        try (BlockDevice src = BlockDevices.open("loop:size_mb=4,sector_size=4096");
             BlockDevice dst = BlockDevices.open("loop:size_mb=4,sector_size=512")) {
            assertThatThrownBy(() -> CopyCommand.run(new PrintWriter(new StringWriter()), r, src, dst,
                    List.of(Phase.FILL, Phase.COPY, Phase.VERIFY), null, Interrupts::none))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("different block sizes");
            for (BlockDevice d : List.of(src, dst)) {
                assertThat(d.queue().snapshot().dispatched()).as(d.name() + " saw no request").isZero();
                assertThat(d.queue().snapshot().completed()).isZero();
            }
        }
    }

    @Test
    void ctrlCStopsTheCopyAndReportsHowFarItGot() throws Exception {
        // A process started in the background by a non-interactive shell inherits SIGINT ignored, and the JVM then
        // installs no handler for it (JVM_RegisterSignal answers SIG_IGN), so no Ctrl-C can reach it: there the
        // test sends SIGTERM, which the same handler takes and such a run still receives.
        String sig = hookable("INT") ? "INT" : "TERM";
        assumeTrue(hookable(sig), "SIGINT and SIGTERM are both ignored by this process");
        CommandLine cl = Main.commandLine();
        CopyCommand copy = cl.getSubcommands().get("copy").getCommand();
        CountDownLatch installed = new CountDownLatch(1);
        copy.interruptSource = () -> {
            Interrupts in = Interrupts.install();   // the real SIGINT handler
            installed.countDown();
            return in;
        };
        Thread ctrlC = Thread.ofPlatform().start(() -> {
            try {
                if (installed.await(60, TimeUnit.SECONDS)) {
                    Thread.sleep(150);
                    Signal.raise(new Signal(sig));
                }
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        });
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(new StringWriter(), true));
        // 1024 records of 64 KiB, 2 in flight, 20 ms each: about 10 s if nothing stops it, so a Ctrl-C whose
        // delivery a loaded machine delays (once past the whole copy at 2 ms per record) still lands inside it.
        int status = cl.execute("copy", "--from", "null:memory_backed=1,size=64,irqmode=2,completion_nsec=20000000",
                "--to", "null:memory_backed=1,size=64", "--iodepth", "2", "--numjobs", "1");
        ctrlC.join();
        assertThat(status).isEqualTo(130);
        String text = out.toString();
        assertThat(text).contains("copy: ").contains("records out");
        Matcher m = Pattern.compile("copy: interrupted; the first (\\d+) bytes of the range are done").matcher(text);
        assertThat(m.find()).as(text).isTrue();
        long done = Long.parseLong(m.group(1));
        assertThat(done).isPositive().isLessThan(64L << 20);
        assertThat(done % (64 * 1024)).as("whole records from the start").isZero();
    }

    /** Whether the JVM can take {@code name} (not ignored since process start); leaves a no-op handler on it. */
    private static boolean hookable(String name) {
        return Signal.handle(new Signal(name), x -> { }) != SignalHandler.SIG_IGN;
    }
}
