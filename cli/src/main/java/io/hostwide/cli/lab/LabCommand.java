package io.hostwide.cli.lab;

import io.hostwide.cli.util.Charts;
import io.hostwide.cli.util.Interrupts;
import io.hostwide.management.util.Json;
import io.hostwide.management.util.Sizes;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code hostwide lab}: named experiments that re-run the seed threads' measurements on this implementation's
 * emulated devices and print our numbers beside the seed's own (quoted, never mixed into ours).
 */
@Command(name = "lab", mixinStandardHelpOptions = true,
        description = {"Re-run a seed thread's experiment on emulated devices; print our table beside the seed's.",
                "Ctrl-C stops after the current cell and prints the rows measured so far."})
public final class LabCommand implements Callable<Integer> {

    static final long DEFAULT_CELL_NANOS = 5_000_000_000L;
    static final long QUICK_CELL_NANOS = 1_000_000_000L;

    @Parameters(index = "0", arity = "0..1", paramLabel = "NAME", description = "Experiment to run (see --list)")
    String name;

    @Option(names = "--list", description = "List the experiments")
    boolean list;

    @Option(names = "--quick", description = "Short cells (1 s) and ramps: an experiment takes well under a minute")
    boolean quick;

    @Option(names = "--json", description = "Print the report as JSON")
    boolean json;

    @Option(names = "--runtime", paramLabel = "TIME",
            description = "Time per cell, e.g. 5s, 800ms (default: 5s, 1s with --quick)")
    String runtime;

    @Option(names = "--repeat", paramLabel = "N", defaultValue = "3",
            description = "Measure each cell N times, in rounds over all cells; tables and verdicts use the medians "
                    + "(default: ${DEFAULT-VALUE}, the fewest runs whose median outvotes one disturbed run)")
    int repeat;

    @Option(names = "--ndelay", paramLabel = "TIME",
            description = "Emulated command latency (scsi_debug ndelay), e.g. 50us; default per experiment")
    String ndelay;

    @Option(names = "--plot", paramLabel = "FILE",
            description = "Also write our table as a chart (FILE.svg, or .png): one bar panel per measured column")
    java.nio.file.Path plot;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec cmdSpec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = cmdSpec.commandLine().getOut();
        if (list) {
            if (name != null) {
                throw new IllegalArgumentException("--list takes no experiment name");
            }
            for (Experiment e : Experiments.all()) {
                out.println(String.format(Locale.ROOT, "%-12s %s (default ndelay %d ns)", e.name(), e.summary(),
                        e.defaultNdelayNanos()));
            }
            out.flush();
            return 0;
        }
        if (name == null) {
            throw new IllegalArgumentException("give an experiment name or --list (experiments: "
                    + Experiments.names() + ")");
        }
        Experiment e = Experiments.byName(name).orElseThrow(() -> new IllegalArgumentException(
                "unknown experiment '" + name + "' (experiments: " + Experiments.names() + ")"));
        if (plot != null) {
            Charts.checkTarget("--plot", plot);
        }
        Interrupts interrupts = Interrupts.install();
        LabReport report = e.run(new LabRun(cellNanos(), repeat(), ndelayNanos(), quick, interrupts,
                json ? null : System.err));
        out.print(json ? Json.pretty(report.toTree()) + "\n" : report.toText());
        if (plot != null) {
            LabPlot.write(plot, report);
            if (!json) {
                out.println("chart written to " + plot);
            }
        }
        out.flush();
        return report.interrupted ? 130 : 0;
    }

    long cellNanos() {
        if (runtime == null) {
            return quick ? QUICK_CELL_NANOS : DEFAULT_CELL_NANOS;
        }
        long n = Sizes.parseNanos("--runtime", runtime);
        if (n < 100_000_000L || n > 3_600_000_000_000L) {
            throw new IllegalArgumentException("--runtime: must be between 100ms and 1h, got '" + runtime + "'");
        }
        return n;
    }

    int repeat() {
        if (repeat < 1 || repeat > 99) {
            throw new IllegalArgumentException("--repeat: must be between 1 and 99, got " + repeat);
        }
        return repeat;
    }

    long ndelayNanos() {
        if (ndelay == null) {
            return -1;
        }
        long n = Sizes.parseNanos("--ndelay", ndelay);
        if (n < 0 || n > 999_999_999L) {
            throw new IllegalArgumentException("--ndelay: must be between 0 and 999ms, got '" + ndelay + "'");
        }
        return n;
    }
}
