package io.hostwide.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.hostwide.cli.CliRun;
import io.hostwide.management.util.Json;
import org.junit.jupiter.api.Test;

import static io.hostwide.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

class BenchCommandTest {



    @Test
    void jsonRunOnTheNullDeviceReportsIosAndPercentiles() throws Exception {
        CliRun r = run("bench", "--device", "null:submit_queues=2", "--rw", "randrw", "--rwmixread", "60",
                "--size", "4m", "--iodepth", "8", "--json", "--stat");
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode tree = Json.mapper().readTree(r.out());
        long ios = tree.at("/read/ios").asLong() + tree.at("/write/ios").asLong();
        assertThat(ios).isEqualTo(1024); // 4 MiB in 4 KiB I/Os
        assertThat(tree.at("/read/lat_ns/p99").asLong()).isGreaterThanOrEqualTo(tree.at("/read/lat_ns/p50").asLong());
        assertThat(tree.at("/errors").asLong()).isZero();
        assertThat(tree.at("/stat/tag_set/nr_hw_queues").asInt()).isEqualTo(2);
        assertThat(tree.at("/stat/request_queue/completed").asLong()).isEqualTo(1024);
    }

    /** Issue 5: mq-deadline is chosen per queue with --scheduler, on any device kind (here an emulated SCSI disk). */
    @Test
    void schedulerOptionSwitchesTheDevicesQueueBeforeTheRun() throws Exception {
        CliRun r = run("bench", "--device", "debug:delay=0,dev_size_mb=4", "--scheduler", "mq-deadline", "--rw", "read",
                "--size", "1m", "--iodepth", "4", "--json", "--stat");
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode tree = Json.mapper().readTree(r.out());
        assertThat(tree.at("/stat/request_queue/scheduler").asText()).isEqualTo("none [mq-deadline]");
        assertThat(tree.at("/read/ios").asLong()).isEqualTo(256);
        CliRun none = run("bench", "--device", "null:scheduler=mq-deadline", "--scheduler", "none", "--size", "64k",
                "--json", "--stat");
        assertThat(none.status()).as(none.err()).isZero();
        assertThat(Json.mapper().readTree(none.out()).at("/stat/request_queue/scheduler").asText())
                .as("--scheduler overrides the null device's knob").isEqualTo("[none] mq-deadline");
    }

    /** The device spec's scheduler= knob: the same choice as --scheduler, made when the emulated HBA is built. */
    @Test
    void schedulerKnobOfTheDebugDeviceSpecChoosesTheQueuesScheduler() throws Exception {
        CliRun r = run("bench", "--device", "debug:delay=0,dev_size_mb=4,scheduler=mq-deadline", "--rw", "read",
                "--size", "256k", "--iodepth", "4", "--json", "--stat");
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode tree = Json.mapper().readTree(r.out());
        assertThat(tree.at("/stat/request_queue/scheduler").asText()).isEqualTo("none [mq-deadline]");
        assertThat(tree.at("/read/ios").asLong()).isEqualTo(64);
        CliRun stat = run("stat", "--device", "debug:delay=0,dev_size_mb=4,scheduler=mq-deadline", "--json");
        assertThat(stat.status()).as(stat.err()).isZero();
        assertThat(stat.out()).as("stat shows the knob's choice").contains("none [mq-deadline]");
        CliRun bad = run("bench", "--device", "loop:scheduler=cfq", "--size", "64k");
        assertThat(bad.status()).isEqualTo(2);
        assertThat(bad.err().lines().findFirst().orElse(""))
                .isEqualTo("hostwide bench: --device: loop: knob 'scheduler': unknown scheduler 'cfq' "
                        + "(have: none mq-deadline)");
    }

    /**
     * Issue 5: the scheduler is changeable at run time. Two switches during a 1.2 s run on an emulated SCSI disk with
     * I/O in flight: both happen, in order, the queue ends on the last one, and no request fails.
     */
    @Test
    void switchSchedulerChangesTheQueueWhileTheJobsRun() throws Exception {
        CliRun r = run("bench", "--device", "debug:ndelay=20000,dev_size_mb=4", "--rw", "randrw", "--runtime", "1200ms",
                "--iodepth", "8", "--numjobs", "2", "--switch-scheduler", "700ms=none",
                "--switch-scheduler", "300ms=mq-deadline", "--json", "--stat");
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode tree = Json.mapper().readTree(r.out());
        JsonNode sw = tree.get("scheduler_switches");
        assertThat(sw).hasSize(2);
        assertThat(sw.get(0).get("scheduler").asText()).isEqualTo("mq-deadline");
        assertThat(sw.get(1).get("scheduler").asText()).isEqualTo("none");
        assertThat(sw.get(0).get("at_s").asDouble()).isLessThan(sw.get(1).get("at_s").asDouble());
        assertThat(tree.at("/stat/request_queue/scheduler").asText()).isEqualTo("[none] mq-deadline");
        assertThat(tree.at("/errors").asLong()).isZero();
        assertThat(tree.at("/read/ios").asLong() + tree.at("/write/ios").asLong()).isPositive();
        assertThat(tree.at("/stat/request_queue/in_flight").asLong()).isZero();

        String[][] bad = {
            {"--switch-scheduler", "5s"}, {"--switch-scheduler", "1s=cfq"},
            {"--runtime", "2s", "--switch-scheduler", "3s=none"}, {"--switch-scheduler", "0s=none"},
        };
        for (String[] c : bad) {
            String[] args = new String[c.length + 3];
            args[0] = "bench";
            args[1] = "--device";
            args[2] = "null";
            System.arraycopy(c, 0, args, 3, c.length);
            CliRun b = run(args);
            assertThat(b.status()).as(String.join(" ", c)).isEqualTo(2);
            assertThat(b.err().lines().findFirst().orElse("")).as(String.join(" ", c))
                    .startsWith("hostwide bench: ").contains("--switch-scheduler");
        }
    }

    /** Polling is on by default for small requests only (PollMode.AUTO); --poll alone and --poll=off force it. */
    @Test
    void pollDefaultsToSmallRequestsAndTheOptionOverridesIt() throws Exception {
        String[][] cases = {
            {"4k", null, "true"}, {"1m", null, "false"}, {"1m", "--poll", "true"}, {"1m", "--hipri", "true"},
            {"4k", "--poll=off", "false"}, {"64k", "--poll=auto", "true"}, {"128k", "--poll=auto", "false"},
        };
        for (String[] c : cases) {
            java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(
                    "bench", "--device", "null:submit_queues=1", "--bs", c[0], "--size", "1m", "--json"));
            if (c[1] != null) {
                args.add(c[1]);
            }
            CliRun r = run(args.toArray(String[]::new));
            assertThat(r.status()).as(r.err()).isZero();
            assertThat(Json.mapper().readTree(r.out()).at("/poll").asText()).as(String.join(" ", args))
                    .isEqualTo(c[2]);
        }
    }

    /** --ramp-time: the JSON records the ramp, and the size counts after it. */
    @Test
    void rampTimeIsRecordedAndTheSizeCountsAfterIt() throws Exception {
        CliRun r = run("bench", "--device", "null:submit_queues=1", "--ramp-time", "300ms", "--size", "1m",
                "--iodepth", "4", "--json");
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode tree = Json.mapper().readTree(r.out());
        assertThat(tree.at("/ramp_ns").asLong()).isEqualTo(300_000_000L);
        assertThat(tree.at("/read/ios").asLong()).isEqualTo(256);
        CliRun none = run("bench", "--device", "null", "--size", "64k", "--json");
        assertThat(Json.mapper().readTree(none.out()).at("/ramp_ns").asLong()).isZero();
        assertThat(Json.mapper().readTree(none.out()).at("/ramp_ios").asLong()).isZero();
    }

    @Test
    void badOptionsAreOneLineWithStatus2() {
        String[][] cases = {
            {"--bs", "1000"}, {"--iodepth", "0"}, {"--rw", "sideways"}, {"--device", "null:no_such_knob=1"},
            {"--device", "floppy"}, {"--runtime", "5x"}, {"--rwmixread", "50"}, {"--numjobs", "abc"},
            {"--scheduler", "cfq"}, {"--poll", "sometimes"}, {"--ramp-time", "-1s"}, {"--ramp-time", "soon"},
        };
        for (String[] c : cases) {
            String[] args = new String[c.length + 1];
            args[0] = "bench";
            System.arraycopy(c, 0, args, 1, c.length);
            CliRun r = run(args);
            assertThat(r.status()).as(String.join(" ", c)).isEqualTo(2);
            String firstLine = r.err().lines().findFirst().orElse("");
            assertThat(firstLine).as(String.join(" ", c)).startsWith("hostwide bench: ").contains(c[0]);
            assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception");
        }
    }
}
