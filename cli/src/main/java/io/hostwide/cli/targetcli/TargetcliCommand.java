package io.hostwide.cli.targetcli;

import io.hostwide.management.AdminSocket;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code hostwide targetcli}: LIO's targetcli over a running serve's management API, for the tools that drive
 * targetcli (democratic-csi pipes scripts into it, Proxmox runs one-liners and reads {@code Created LUN N.}). With
 * words it runs them as one command; without, it runs stdin line by line, stopping at the first refusal.
 */
@Command(name = "targetcli", mixinStandardHelpOptions = true,
        description = {"targetcli's commands over a running 'hostwide serve' (README: targetcli front end).",
                "  hostwide targetcli /backstores/block create name=vol1 dev=/dev/zvol/tank/vol1",
                "  hostwide targetcli /iscsi create iqn.2026-12.io.hostwide:vol1",
                "  hostwide targetcli /iscsi/IQN/tpg1/luns create /backstores/block/vol1     (Created LUN 0.)",
                "  printf 'cd /iscsi\\ncreate IQN\\n' | hostwide targetcli",
                "Exit status: 0 done, 1 refused (the reason is printed; a script stops at that line), 2 usage."})
public final class TargetcliCommand implements Callable<Integer> {

    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "[PATH] COMMAND [ARGS...]; none: read stdin")
    List<String> words;

    @Option(names = "--port", defaultValue = "3260",
            description = "First portal port of the server (selects its default socket; default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--socket", paramLabel = "PATH", description = "The server's --admin-socket, if it set one")
    Path socket;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        Path path = socket != null ? socket : AdminSocket.defaultPath(port);
        if (!Files.exists(path)) {
            throw new IllegalArgumentException("no hostwide serve admin socket at " + path
                    + " (is the server running? use --port or --socket)");
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        BufferedReader in = words == null || words.isEmpty()
                ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)) : null;
        return run(Api.socket(path), words, in, out, err);
    }

    /** One command ({@code words}) or a script ({@code in}); 0 when every line succeeded, else 1. */
    static int run(Api api, List<String> words, BufferedReader in, PrintWriter out, PrintWriter err)
            throws IOException {
        Shell sh = new Shell(api, out, err);
        try {
            if (in == null) {
                if (!step(sh, String.join(" ", words.stream().map(TargetcliCommand::quoted).toList()), "", err)) {
                    return 1;
                }
            } else {
                int n = 0;
                for (String line = in.readLine(); line != null && !sh.exited(); line = in.readLine()) {
                    if (!step(sh, line, "line " + ++n + ": ", err)) {
                        return 1;
                    }
                }
            }
            return step(sh, null, "", err) ? 0 : 1;
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** Runs a line (null: the end), printing a refusal; false if refused. */
    private static boolean step(Shell sh, String line, String where, PrintWriter err) {
        try {
            if (line == null) {
                sh.finish();
            } else {
                sh.run(line);
            }
            return true;
        } catch (Shell.Failure e) {
            err.println("hostwide targetcli: " + where + e.getMessage());
        } catch (Api.Error e) {
            err.println("hostwide targetcli: " + where + e.reason + ": " + e.getMessage());
        }
        sh.out.flush();
        return false;
    }

    /** A word as one word again: the shell split the command line already, spaces inside stay. */
    private static String quoted(String w) {
        return w.isEmpty() || w.chars().anyMatch(Character::isWhitespace) || w.contains("#")
                ? "\"" + w.replace("\"", "") + "\"" : w;
    }
}
