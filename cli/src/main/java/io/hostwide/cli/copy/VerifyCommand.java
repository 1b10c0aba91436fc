package io.hostwide.cli.copy;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.List;
import java.util.concurrent.Callable;

/** {@code hostwide verify}: compares two devices' ranges chunk by chunk with many reads in flight. */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = {"Compare a range of two devices byte for byte (reads in flight across threads).",
                "Exit status 1 and the first differing byte when they differ."})
public final class VerifyCommand implements Callable<Integer> {

    @CommandLine.Mixin
    RangeOptions range;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        return CopyCommand.runPhases(spec, range, List.of(Phase.VERIFY));
    }
}
