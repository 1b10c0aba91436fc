package io.hostwide.cli;

import io.hostwide.cli.bench.BenchCommand;
import io.hostwide.cli.config.ConfigCommand;
import io.hostwide.cli.copy.CopyCommand;
import io.hostwide.cli.copy.VerifyCommand;
import io.hostwide.cli.lab.LabCommand;
import io.hostwide.cli.ls.LsCommand;
import io.hostwide.cli.serve.AdminCommand;
import io.hostwide.cli.serve.ServeCommand;
import io.hostwide.cli.stat.StatCommand;
import io.hostwide.cli.targetcli.TargetcliCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code hostwide} command. Each subcommand lives in its own class and is
 * registered here; bad options end with one line naming the problem and exit
 * status 2 (see {@link UsageErrors}).
 */
@Command(name = "hostwide",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "A multi-queue SCSI storage stack for the JVM.",
        subcommands = {ServeCommand.class, AdminCommand.class, ConfigCommand.class, BenchCommand.class, StatCommand.class, LsCommand.class,
                CopyCommand.class, VerifyCommand.class, LabCommand.class, TargetcliCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setParameterExceptionHandler(new UsageErrors());
        cl.setExecutionExceptionHandler(new UsageErrors());
        // admin's API verbs take any --param the method has (admin backstore create x --type ram --size 1g)
        cl.getSubcommands().get("admin").setUnmatchedOptionsArePositionalParams(true);
        return cl;
    }

    public static void main(String[] args) {
        int status = commandLine().execute(args);
        System.out.flush();
        System.exit(status);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"hostwide " + (v == null ? "0.1.0-SNAPSHOT" : v)
                    + " (Java " + Runtime.version() + ")"};
        }
    }
}
