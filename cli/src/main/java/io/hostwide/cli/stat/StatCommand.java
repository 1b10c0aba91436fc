package io.hostwide.cli.stat;

import io.hostwide.cli.load.BlockDeviceTarget;
import io.hostwide.management.util.Json;
import io.hostwide.cli.util.StatPrinter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;

/**
 * {@code hostwide stat}: the sysfs/debugfs-like view of a device's objects — tag
 * set, request queue, hardware queues, tags and their sbitmap dumps — as text
 * or JSON. {@code hostwide bench --stat} prints the same view after a run.
 */
@Command(name = "stat", mixinStandardHelpOptions = true,
        description = {"Show a device's block-layer objects and attributes (tag set, request queue, "
                + "hardware queues, sbitmap dumps) as they are after it is set up."})
public final class StatCommand implements Callable<Integer> {

    @Option(names = "--device", paramLabel = "KIND[:KEY=VALUE,...]", defaultValue = "null",
            description = "Device to set up and show (default: ${DEFAULT-VALUE})")
    String device;

    @Option(names = "--json", description = "Print JSON instead of text")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        try (BlockDeviceTarget target = BlockDeviceTarget.open(device)) {
            Object tree = target.stat();
            var out = spec.commandLine().getOut();
            out.print(json ? Json.pretty(tree) + "\n" : StatPrinter.text(tree));
            out.flush();
        }
        return 0;
    }
}
