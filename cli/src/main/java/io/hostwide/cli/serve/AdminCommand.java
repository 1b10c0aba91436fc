package io.hostwide.cli.serve;

import io.hostwide.management.AdminSocket;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code hostwide admin}: talks to a running {@code hostwide serve} over its admin socket. */
@Command(name = "admin", mixinStandardHelpOptions = true,
        description = {"Manage a running 'hostwide serve'.",
                "  status  portals, targets, LUNs and sessions (JSON)",
                "  stats   per backstore: commands, bytes, latency percentiles, errors (JSON)",
                "  reload  re-read the server's --config and apply LUN-map and ACL changes live"})
public final class AdminCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "COMMAND", description = "status, stats or reload")
    String command;

    @Option(names = "--port", defaultValue = "3260",
            description = "First portal port of the server (selects its default socket; default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--socket", paramLabel = "PATH", description = "The server's --admin-socket, if it set one")
    Path socket;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (!command.equals("status") && !command.equals("stats") && !command.equals("reload")) {
            throw new IllegalArgumentException("unknown command '" + command + "' (known: status, stats, reload)");
        }
        Path path = socket != null ? socket : AdminSocket.defaultPath(port);
        if (!Files.exists(path)) {
            throw new IllegalArgumentException("no hostwide serve admin socket at " + path
                    + " (is the server running? use --port or --socket)");
        }
        String reply;
        try {
            reply = AdminSocket.request(path, command);
        } catch (IOException e) {
            spec.commandLine().getErr().println("hostwide admin: cannot reach " + path + ": " + e.getMessage());
            return 1;
        }
        spec.commandLine().getOut().print(reply);
        spec.commandLine().getOut().flush();
        return reply.contains("\"ok\" : true") ? 0 : 1;
    }
}
