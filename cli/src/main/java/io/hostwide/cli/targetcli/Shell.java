package io.hostwide.cli.targetcli;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * targetcli's command language over the management API: a line is {@code [PATH] COMMAND [ARGS...]}, ARGS
 * positional or {@code key=value} by targetcli's parameter names. The shell keeps the current node ({@code cd}) and
 * CHAP credentials given in parts ({@code set auth userid=U}, then {@code set auth password=P}) until both halves
 * are known, since the API sets a user and its secret together.
 */
final class Shell {

    /** A command refused: the message is targetcli's words where tools know them, or ours naming the reason. */
    static final class Failure extends RuntimeException {
        Failure(String message) {
            super(message);
        }
    }

    private static final Set<String> COMMANDS = Set.of("cd", "ls", "create", "delete", "set", "get", "saveconfig",
            "exit", "pwd", "enable", "help");

    final Api api;
    final PrintWriter out;
    /** Where targetcli's warnings go (its log.warning writes to stderr). */
    final PrintWriter err;
    private Node cwd = Node.ROOT_NODE;
    private boolean exited;
    /** CHAP keys set so far per node path (targetcli's userid/password/mutual_userid/mutual_password), unapplied. */
    final Map<String, Map<String, String>> pendingAuth = new LinkedHashMap<>();
    /** Targets given authentication=1 and no CHAP credentials yet: hostwide would admit anyone without them. */
    final Set<String> authRequired = new java.util.LinkedHashSet<>();

    Shell(Api api, PrintWriter out, PrintWriter err) {
        this.api = api;
        this.out = out;
        this.err = err;
    }

    boolean exited() {
        return exited;
    }

    Node cwd() {
        return cwd;
    }

    /** Runs one line; blank lines and {@code #} comments do nothing. */
    void run(String line) {
        List<String> words = words(line);
        if (words.isEmpty()) {
            return;
        }
        Node at = cwd;
        String first = words.get(0);
        if (!COMMANDS.contains(first)) {
            try {
                at = cwd.resolve(first);
            } catch (Failure e) {
                if (first.contains("/") || first.startsWith(".")) {
                    throw e;
                }
                throw new Failure("Command not found " + first + " (not in hostwide targetcli's subset; README: "
                        + "targetcli front end)");
            }
            words = words.subList(1, words.size());
            if (words.isEmpty()) { // a path alone goes there, as configshell does
                cd(at);
                return;
            }
        }
        String command = words.get(0);
        List<String> args = words.subList(1, words.size());
        switch (command) {
            case "cd" -> cd(args.isEmpty() ? Node.ROOT_NODE : at.resolve(one(args, "cd PATH")));
            case "pwd" -> out.println(at.path());
            case "ls" -> new Tree(this).print(args.isEmpty() ? at : at.resolve(one(args, "ls [PATH]")));
            case "create" -> Commands.create(this, at, args);
            case "delete" -> Commands.delete(this, at, args);
            case "set" -> Commands.set(this, at, args);
            case "enable" -> Commands.enable(this, at);
            case "saveconfig" -> Commands.saveconfig(this, args);
            case "exit" -> exited = true;
            case "get", "help" -> throw new Failure("'" + command + "' is not in hostwide targetcli's subset (README: "
                    + "targetcli front end)");
            default -> throw new Failure("Command not found " + command);
        }
    }

    /** After the last line: credentials given only in part are an error rather than silently unapplied. */
    void finish() {
        if (!pendingAuth.isEmpty()) {
            var e = pendingAuth.entrySet().iterator().next();
            pendingAuth.clear();
            throw new Failure(e.getKey() + ": set auth " + String.join(", ", e.getValue().keySet())
                    + " given without its other half; hostwide sets a CHAP user and password together (and a mutual "
                    + "user and password together): set auth userid=U password=P");
        }
        for (String t : authRequired) {
            JsonNode target = api.call("target_get", Api.params().put("name", t));
            if (target.path("chap_user").isNull() || target.path("chap_user").isMissingNode()) {
                authRequired.clear();
                throw new Failure("/iscsi/" + t + "/tpg1: authentication=1 without CHAP credentials: hostwide would "
                        + "admit initiators without CHAP; give them with set auth userid=U password=P");
            }
        }
        authRequired.clear();
    }

    private void cd(Node to) {
        Commands.require(this, to);
        cwd = to;
    }

    private static String one(List<String> args, String usage) {
        if (args.size() != 1) {
            throw new Failure("usage: " + usage);
        }
        return args.get(0);
    }

    /** Words of a line: whitespace-separated, "double" or 'single' quotes keep spaces; {@code #} starts a comment. */
    static List<String> words(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder w = null;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    w.append(c);
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
                if (w == null) {
                    w = new StringBuilder();
                }
            } else if (c == '#' && w == null) {
                break;
            } else if (Character.isWhitespace(c)) {
                if (w != null) {
                    out.add(w.toString());
                    w = null;
                }
            } else {
                if (w == null) {
                    w = new StringBuilder();
                }
                w.append(c);
            }
        }
        if (quote != 0) {
            throw new Failure("unterminated quote in: " + line);
        }
        if (w != null) {
            out.add(w.toString());
        }
        return out;
    }

    /**
     * targetcli's argument binding: positional words fill {@code names} in order, {@code key=value} words name
     * theirs; anything else is an error in configshell's words ({@code ConfigNode.assert_params},
     * configshell/node.py, its "positionnal" spelling included).
     */
    static Map<String, String> bind(List<String> args, List<String> names) {
        Map<String, String> m = new LinkedHashMap<>();
        int next = 0;
        for (String a : args) {
            int eq = a.indexOf('=');
            if (eq > 0) {
                String k = a.substring(0, eq);
                if (!names.contains(k)) {
                    throw new Failure("Unexpected keyword parameter '" + k + "'.");
                }
                if (m.put(k, a.substring(eq + 1)) != null) {
                    throw new Failure("Duplicate parameter " + k + ".");
                }
            } else {
                while (next < names.size() && m.containsKey(names.get(next))) {
                    next++;
                }
                if (next == names.size()) {
                    throw new Failure("Got " + args.size() + " positionnal parameters, expected at most "
                            + names.size() + ".");
                }
                m.put(names.get(next++), a);
            }
        }
        return m;
    }

    /** targetcli's booleans: true/false, yes/no, 1/0, on/off. */
    static boolean bool(String key, String v) {
        return switch (v.toLowerCase(java.util.Locale.ROOT)) {
            case "true", "yes", "1", "on" -> true;
            case "false", "no", "0", "off" -> false;
            default -> throw new Failure("Invalid value '" + v + "' for " + key + " (true or false, 1 or 0)");
        };
    }
}
