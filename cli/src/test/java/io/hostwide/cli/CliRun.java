package io.hostwide.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/** One {@code hostwide} command run in process, as the CLI tests run it: its exit status, stdout and stderr. */
public record CliRun(int status, String out, String err) {

    /** Runs {@code hostwide args...} through {@link Main#commandLine()}, capturing both streams. */
    public static CliRun run(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int status = cl.execute(args);
        return new CliRun(status, out.toString(), err.toString());
    }
}
