package io.hostwide.cli.bench;

import io.hostwide.cli.load.BenchResult;
import io.hostwide.cli.load.BenchRunner;
import io.hostwide.cli.load.BenchSpec;
import io.hostwide.cli.load.BenchTimeline;
import io.hostwide.cli.load.BlockDeviceTarget;
import io.hostwide.cli.load.PollMode;
import io.hostwide.cli.load.RwMode;
import io.hostwide.cli.util.Interrupts;
import io.hostwide.management.util.Json;
import io.hostwide.management.util.Sizes;
import io.hostwide.cli.util.StatPrinter;
import io.hostwide.cli.util.Charts;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code hostwide bench}: a fio-like load generator for any hostwide block device. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Drive a block device with a fio-like workload and report IOPS, bandwidth and latency.",
                "Prints a progress line each second; Ctrl-C stops early and still prints the summary."})
public final class BenchCommand implements Callable<Integer> {

    @Option(names = "--device", paramLabel = "KIND[:KEY=VALUE,...]", defaultValue = "null",
            description = "Device to drive (default: ${DEFAULT-VALUE}). Kinds: ${COMPLETION-CANDIDATES}. "
                    + "E.g. null:submit_queues=2,hw_queue_depth=128,completion_nsec=10000",
            completionCandidates = BenchCommand.Kinds.class)
    String device;

    @Option(names = "--scheduler", paramLabel = "NAME",
            description = "I/O scheduler of the device's request queue, set before the run: none or mq-deadline "
                    + "(default: the device's own, none for SCSI disks; overrides the scheduler= knob of null:, loop: "
                    + "and debug:)")
    String scheduler;

    @Option(names = "--switch-scheduler", paramLabel = "AT=NAME",
            description = "Change the scheduler while the jobs run, AT after the start (repeatable), e.g. "
                    + "5s=mq-deadline: the queue is frozen for the switch, as a sysfs scheduler write is")
    java.util.List<String> switchScheduler = new java.util.ArrayList<>();

    @Option(names = "--rw", paramLabel = "MODE", defaultValue = "randread",
            description = "read, write, randread, randwrite, rw or randrw (default: ${DEFAULT-VALUE})")
    String rw;

    @Option(names = "--rwmixread", paramLabel = "PCT", description = "Percentage of reads in rw/randrw (default: 50)")
    Integer rwmixread;

    @Option(names = "--bs", paramLabel = "SIZE", defaultValue = "4k",
            description = "Block size per I/O, a multiple of 512 (default: ${DEFAULT-VALUE})")
    String bs;

    @Option(names = "--iodepth", paramLabel = "N", defaultValue = "32",
            description = "I/Os in flight per job (default: ${DEFAULT-VALUE})")
    int iodepth;

    @Option(names = "--numjobs", paramLabel = "N", defaultValue = "1",
            description = "Job threads (default: ${DEFAULT-VALUE})")
    int numjobs;

    @Option(names = {"--poll", "--hipri"}, paramLabel = "WHEN", arity = "0..1", fallbackValue = "on",
            defaultValue = "auto",
            description = "Jobs reap their own completions while they wait (blk_poll, fio's hipri): on an iscsi: "
                    + "device the job thread reads the connection itself, one wake-up per completion instead of two "
                    + "(the connection's reader, then the job); other devices ignore it. WHEN is on (--poll alone), "
                    + "off, or auto (default): on for --bs up to 64 KiB, off above, where the reader thread's copy "
                    + "beside the job's submissions did better")
    String poll;

    @Option(names = "--runtime", paramLabel = "TIME",
            description = "Run time, e.g. 10s, 500ms, 2m (default: 10s unless --size is given)")
    String runtime;

    @Option(names = "--size", paramLabel = "SIZE", description = "Bytes each job transfers before it stops, e.g. 1g")
    String size;

    @Option(names = "--ramp-time", paramLabel = "TIME",
            description = "Run the workload this long first without counting it (fio's ramp_time), e.g. 2s: warm-up "
                    + "(JIT compilation, caches) stays out of IOPS, latency and CPU; --runtime and --size start after it")
    String rampTime;

    @Option(names = "--seed", defaultValue = "1", description = "Random seed for offsets and data (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--json", description = "Print the result as JSON (no progress lines)")
    boolean json;

    @Option(names = "--stat", description = "Also print the device's objects and attributes at the end")
    boolean stat;

    @Option(names = "--plot", paramLabel = "FILE",
            description = "Also write a chart of the run (FILE.svg, or .png): IOPS and latency percentiles (p50, p99, p99.9) second by "
                    + "second; with --json the seconds are in the output too (\"timeline\")")
    java.nio.file.Path plot;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec cmdSpec;

    @Override
    public Integer call() throws Exception {
        BenchSpec spec = validate();
        if (plot != null) {
            Charts.checkTarget("--plot", plot);
        }
        SchedulerSwitches switches = SchedulerSwitches.parse(switchScheduler, spec.runtimeNanos());
        Interrupts interrupts = Interrupts.install();
        try (BlockDeviceTarget target = BlockDeviceTarget.open(device)) {
            if (scheduler != null) {
                target.scheduler(scheduler);
            }
            var out = cmdSpec.commandLine().getOut();
            if (!json) {
                out.println("hostwide bench: " + target.description());
                out.flush();
            }
            BenchTimeline timeline = plot != null ? new BenchTimeline() : null;
            BenchRunner runner = new BenchRunner(target, spec, interrupts, json ? null : System.out, timeline);
            BenchResult result;
            try (switches) {
                switches.start(target, json ? null : System.out);
                result = runner.run();
            }
            if (json) {
                Map<String, Object> tree = new LinkedHashMap<>(result.toTree());
                if (!switches.isEmpty()) {
                    tree.put("scheduler_switches", switches.done());
                }
                if (stat) {
                    tree.put("stat", target.stat());
                }
                if (timeline != null) {
                    tree.put("timeline", timeline.toTree());
                }
                out.println(Json.pretty(tree));
            } else {
                out.print(result.toText());
                if (stat) {
                    out.print(StatPrinter.text(target.stat()));
                }
            }
            if (plot != null) {
                BenchPlot.write(plot, result, timeline);
                if (!json) {
                    out.println("hostwide bench: chart written to " + plot);
                }
            }
            out.flush();
            if (result.errors() > 0) {
                return 1;
            }
            return result.interrupted() && interrupts.signal() != null ? 130 : 0;
        }
    }

    BenchSpec validate() {
        if (scheduler != null) {
            BlockDeviceTarget.checkScheduler(scheduler);
        }
        RwMode mode = RwMode.parse(rw);
        long bsBytes = Sizes.parseBytes("--bs", bs);
        if (bsBytes > 64L << 20) {
            throw new IllegalArgumentException("--bs: " + bs + " is larger than 64 MiB");
        }
        long runtimeNanos = runtime == null ? 0 : Sizes.parseNanos("--runtime", runtime);
        long sizeBytes = size == null ? 0 : Sizes.parseBytes("--size", size);
        if (runtime != null && runtimeNanos <= 0) {
            throw new IllegalArgumentException("--runtime: must be positive, got '" + runtime + "'");
        }
        if (size != null && sizeBytes <= 0) {
            throw new IllegalArgumentException("--size: must be positive, got '" + size + "'");
        }
        long rampNanos = rampTime == null ? 0 : Sizes.parseNanos("--ramp-time", rampTime);   // no sign: never < 0
        if (runtime == null && size == null) {
            runtimeNanos = 10_000_000_000L;
        }
        if (rwmixread != null && !mode.mixed()) {
            throw new IllegalArgumentException("--rwmixread: only applies to --rw rw or randrw");
        }
        int readPct = rwmixread != null ? rwmixread : mode.defaultReadPercent();
        boolean polls = PollMode.parse(poll).polls((int) bsBytes);
        return new BenchSpec(mode, readPct, (int) bsBytes, iodepth, numjobs, runtimeNanos, sizeBytes, seed, polls,
                rampNanos);
    }

    /** For picocli's ${COMPLETION-CANDIDATES}: the device kinds registered with the block layer. */
    public static final class Kinds implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return java.util.Arrays.asList(BlockDeviceTarget.kinds().split(", ")).iterator();
        }
    }
}
