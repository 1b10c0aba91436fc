package io.hostwide.cli.copy;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.List;
import java.util.concurrent.Callable;

/** {@code hostwide verify}: compares two devices' ranges chunk by chunk with many reads in flight. */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = {"Check a range of one device against another (requests in flight across threads).",
                "Compares here, or sends VERIFY(16) BYTCHK=1 to the destination (--method).",
                "Exit status 1 and the first differing byte and its LBA when they differ."})
public final class VerifyCommand implements Callable<Integer> {

    @CommandLine.Mixin
    RangeOptions range;

    @CommandLine.Option(names = "--method", paramLabel = "compare|verify-cmd", converter = VerifyMethod.Converter.class,
            description = {"compare: read both devices and compare here; verify-cmd: read the source and send it",
                    "with VERIFY(16) BYTCHK=1 to the destination, which compares (a MISCOMPARE gives the offset).",
                    "Default: verify-cmd when the destination takes it, else compare."})
    VerifyMethod method;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        return CopyCommand.runPhases(spec, range, List.of(Phase.VERIFY), method, io.hostwide.cli.util.Interrupts::install);
    }
}
