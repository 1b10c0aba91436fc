package io.hostwide.cli.copy;

import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDevices;
import io.hostwide.cli.util.DeviceSpecs;
import io.hostwide.cli.util.Interrupts;
import io.hostwide.management.util.Json;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code hostwide copy} (sg_mrq_dd's role): device to device with many requests in
 * flight across threads; optionally fills the source with seeded random data first
 * (emulated devices start empty) and compares afterwards. {@code hostwide verify}
 * is the compare alone.
 */
@Command(name = "copy", mixinStandardHelpOptions = true,
        description = {"Copy a device's blocks to another with many requests in flight (like sg_mrq_dd).",
                "Prints dd-style records in/out and progress each second; Ctrl-C stops after in-flight chunks."})
public final class CopyCommand implements Callable<Integer> {

    @CommandLine.Mixin
    RangeOptions range;

    @Option(names = "--fill-source", description = "First write seeded random data over the source range")
    boolean fillSource;

    @Option(names = "--verify", description = "Afterwards check the destination against the source (see --method)")
    boolean verify;

    @Option(names = "--method", paramLabel = "compare|verify-cmd", converter = VerifyMethod.Converter.class,
            description = {"How --verify checks: compare (read both, compare here) or verify-cmd (read the source,",
                    "send it with VERIFY(16) BYTCHK=1 to the destination). Default: verify-cmd when the destination",
                    "takes it, else compare."})
    VerifyMethod method;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Where Ctrl-C comes from: the process's signal handlers (tests wrap it to know when they are installed). */
    java.util.function.Supplier<Interrupts> interruptSource = Interrupts::install;

    @Override
    public Integer call() throws Exception {
        List<Phase> phases = new ArrayList<>();
        if (fillSource) {
            phases.add(Phase.FILL);
        }
        phases.add(Phase.COPY);
        if (verify) {
            phases.add(Phase.VERIFY);
        }
        if (method != null && !verify) {
            throw new IllegalArgumentException("--method: only meaningful with --verify");
        }
        return runPhases(spec, range, phases, method, interruptSource);
    }

    /**
     * Opens both devices, checks the plan and the verify method (all before any I/O that changes data), then
     * runs the phases, stopping at the first that fails or is interrupted.
     */
    static int runPhases(CommandLine.Model.CommandSpec spec, RangeOptions range, List<Phase> phases,
                         VerifyMethod requested, java.util.function.Supplier<Interrupts> interruptSource)
            throws InterruptedException {
        try (BlockDevice src = open("--from", range.from); BlockDevice dst = open("--to", range.to)) {
            return run(spec.commandLine().getOut(), range, src, dst, phases, requested, interruptSource);
        }
    }

    /** {@link #runPhases} on devices already open: every check comes before the first phase's first request. */
    static int run(PrintWriter out, RangeOptions range, BlockDevice src, BlockDevice dst, List<Phase> phases,
                   VerifyMethod requested, java.util.function.Supplier<Interrupts> interruptSource)
            throws InterruptedException {
        CopyPlan plan = range.plan(src, dst);
        VerifyMethod method = phases.contains(Phase.VERIFY) ? VerifyCmd.resolve(requested, dst, plan)
                : VerifyMethod.COMPARE;
        Interrupts interrupts = interruptSource.get();
        Map<String, Object> tree = new LinkedHashMap<>();
        List<Object> results = new ArrayList<>();
        int status = 0;
        for (Phase p : phases) {
            PhaseResult r = new CopyRunner(p, method, src, dst, plan, interrupts, range.json ? null : System.out).run();
            results.add(r.toTree());
            if (!range.json) {
                out.print(r.toText());
                out.flush();
            }
            if (!r.ok()) {
                status = r.interrupted() ? 130 : 1;
                break;
            }
        }
        if (range.json) {
            tree.put("from", DeviceSpecs.redact(range.from));
            tree.put("to", DeviceSpecs.redact(range.to));
            tree.put("bs", plan.chunk());
            tree.put("phases", results);
            out.println(Json.pretty(tree));
            out.flush();
        }
        return status;
    }

    private static BlockDevice open(String option, String spec) {
        try {
            return BlockDevices.open(spec);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
        }
    }
}
