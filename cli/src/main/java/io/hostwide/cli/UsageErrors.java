package io.hostwide.cli;

import picocli.CommandLine;

/**
 * Turns bad input into one line on stderr and exit status 2, never a stack trace.
 * Parameter errors come from picocli's parsing; {@link IllegalArgumentException}s
 * thrown while a command validates its options (a device knob, a config typo) are
 * treated the same way.
 */
final class UsageErrors implements CommandLine.IParameterExceptionHandler,
        CommandLine.IExecutionExceptionHandler {

    static final int USAGE = 2;
    static final int FAILURE = 1;

    @Override
    public int handleParseException(CommandLine.ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + ex.getMessage());
        cmd.getErr().println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for more information.");
        return USAGE;
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, CommandLine.ParseResult parseResult) {
        String name = cmd.getCommandSpec().qualifiedName();
        if (ex instanceof IllegalArgumentException) {
            cmd.getErr().println(name + ": " + ex.getMessage());
            return USAGE;
        }
        cmd.getErr().println(name + ": error: " + ex);
        if (System.getenv("HOSTWIDE_DEBUG") != null) {
            ex.printStackTrace(cmd.getErr());
        }
        return FAILURE;
    }
}
