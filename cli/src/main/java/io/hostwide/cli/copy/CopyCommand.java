package io.hostwide.cli.copy;

import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDevices;
import io.hostwide.cli.util.DeviceSpecs;
import io.hostwide.cli.util.Interrupts;
import io.hostwide.cli.util.Json;
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

    @Option(names = "--verify", description = "Afterwards read both ranges and compare them")
    boolean verify;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

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
        return runPhases(spec, range, phases);
    }

    static int runPhases(CommandLine.Model.CommandSpec spec, RangeOptions range, List<Phase> phases)
            throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        try (BlockDevice src = open("--from", range.from); BlockDevice dst = open("--to", range.to)) {
            CopyPlan plan = range.plan(src, dst);
            Interrupts interrupts = Interrupts.install();
            Map<String, Object> tree = new LinkedHashMap<>();
            List<Object> results = new ArrayList<>();
            int status = 0;
            for (Phase p : phases) {
                PhaseResult r = new CopyRunner(p, src, dst, plan, interrupts, range.json ? null : System.out).run();
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
    }

    private static BlockDevice open(String option, String spec) {
        try {
            return BlockDevices.open(spec);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
        }
    }
}
