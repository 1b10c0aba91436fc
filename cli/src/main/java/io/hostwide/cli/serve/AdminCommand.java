package io.hostwide.cli.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hostwide.management.AdminSocket;
import io.hostwide.management.api.JsonRpc;
import io.hostwide.management.util.Json;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code hostwide admin}: talks to a running {@code hostwide serve} over its admin socket. {@code status}, {@code
 * stats} and {@code reload} are the first protocol's commands; every other verb is a call of the management API
 * (README "Management API"): {@code OBJECT VERB POSITIONALS... [--param value]...}, where {@code --block-size 4096}
 * is the param {@code block_size}, or {@code call METHOD '{json params}'}.
 */
@Command(name = "admin", mixinStandardHelpOptions = true,
        description = {"Manage a running 'hostwide serve'.",
                "  status [--full] | stats | reload             as before (JSON); status: counts, --full: listings",
                "  call METHOD ['{json params}']               any API method (README: Management API)",
                "  backstore create NAME --type ram|file|block|null|rbd [--size 1g] [--path P] [--pool P --image I --conf C] ...",
                "  backstore delete|get NAME,  backstore list,  backstore resize NAME SIZE [--allow-shrink]",
                "  backstore set NAME [--write-protect true] [--removable true]",
                "  target create IQN [--alias A] [--generate-node-acls],  target delete|get IQN,  target list",
                "  target set IQN [--generate-node-acls true|false] [--alias A]",
                "  lun create TARGET BACKSTORE [--lun N],  lun delete TARGET LUN,  lun list TARGET",
                "  acl create TARGET INITIATOR,  acl delete TARGET INITIATOR,  acl list TARGET",
                "  acl map TARGET INITIATOR LUN [--mapped-lun N] [--read-only],  acl unmap TARGET INITIATOR MAPPED_LUN",
                "  chap set [--target IQN] --user U --secret S [--mutual-user U --mutual-secret S]",
                "  chap clear [--target IQN],  config get,  config save [PATH]",
                "  portal list,  portal create IP [PORT],  portal delete IP [PORT]   (live; PORT default 3260;",
                "    refused when serve runs with --listen, which fixes the portals)",
                "Exit status: 0 done, 1 refused by the server (the reason is printed), 2 usage."})
public final class AdminCommand implements Callable<Integer> {

    /** (object verb) -> method and its positional parameters. */
    record Verb(String method, List<String> positionals) {
    }

    static final Map<String, Verb> VERBS = Map.ofEntries(
            Map.entry("backstore create", new Verb("backstore_create", List.of("name"))),
            Map.entry("backstore delete", new Verb("backstore_delete", List.of("name"))),
            Map.entry("backstore get", new Verb("backstore_get", List.of("name"))),
            Map.entry("backstore list", new Verb("backstore_list", List.of())),
            Map.entry("backstore resize", new Verb("backstore_resize", List.of("name", "size"))),
            Map.entry("backstore set", new Verb("backstore_set_attributes", List.of("name"))),
            Map.entry("target create", new Verb("target_create", List.of("name"))),
            Map.entry("target delete", new Verb("target_delete", List.of("name"))),
            Map.entry("target get", new Verb("target_get", List.of("name"))),
            Map.entry("target list", new Verb("target_list", List.of())),
            Map.entry("target set", new Verb("target_set_attributes", List.of("name"))),
            Map.entry("lun create", new Verb("lun_create", List.of("target", "backstore"))),
            Map.entry("lun delete", new Verb("lun_delete", List.of("target", "lun"))),
            Map.entry("lun list", new Verb("lun_list", List.of("target"))),
            Map.entry("acl create", new Verb("acl_create", List.of("target", "initiator"))),
            Map.entry("acl delete", new Verb("acl_delete", List.of("target", "initiator"))),
            Map.entry("acl list", new Verb("acl_list", List.of("target"))),
            Map.entry("acl map", new Verb("acl_map_lun", List.of("target", "initiator", "lun"))),
            Map.entry("acl unmap", new Verb("acl_unmap_lun", List.of("target", "initiator", "mapped_lun"))),
            Map.entry("chap set", new Verb("chap_set", List.of())),
            Map.entry("chap clear", new Verb("chap_clear", List.of())),
            Map.entry("portal list", new Verb("portal_list", List.of())),
            Map.entry("portal create", new Verb("portal_create", List.of("ip_address", "port"))),
            Map.entry("portal delete", new Verb("portal_delete", List.of("ip_address", "port"))),
            Map.entry("config get", new Verb("config_get", List.of())),
            Map.entry("config save", new Verb("config_save", List.of("path"))));

    private static final Set<String> INTEGERS = Set.of("lun", "mapped_lun", "block_size", "physical_block_size",
            "queue_depth", "port");
    /** Verbs whose last positional may be left out (the API has a default for it). */
    private static final Set<String> OPTIONAL_LAST = Set.of("config save", "portal create", "portal delete");
    private static final Set<String> BOOLEANS = Set.of("thin", "write_cache", "direct", "removable", "write_protect",
            "read_only", "generate_node_acls", "map_to_acls", "include_secrets", "allow_shrink");
    private static final Set<String> OLD = Set.of("status", "stats", "reload");

    @Parameters(paramLabel = "WORDS", arity = "1..*", description = "status, stats, reload, call METHOD [JSON], "
            + "or OBJECT VERB ARGS... [--param value]...")
    List<String> words;

    @Option(names = "--port", defaultValue = "3260",
            description = "First portal port of the server (selects its default socket; default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--socket", paramLabel = "PATH", description = "The server's --admin-socket, if it set one")
    Path socket;

    @Option(names = "--full", description = "status: also every target with its LUNs and every session (the "
            + "default is counts: at 1,000 targets the listing is hundreds of kilobytes)")
    boolean full;

    @Option(names = "--json", description = "Print the whole JSON-RPC response (default: the result, indented)")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        String first = words.get(0);
        if (full && !(first.equals("status") && words.size() == 1)) {
            throw new IllegalArgumentException("--full: only with status");
        }
        if (OLD.contains(first) && words.size() == 1) {
            return old(full ? "status full" : first);
        }
        String request = request();
        Path path = path();
        String answer;
        try {
            answer = AdminSocket.call(path, List.of(request)).get(0);
        } catch (IOException e) {
            spec.commandLine().getErr().println("hostwide admin: cannot reach " + path + ": " + e.getMessage());
            return 1;
        }
        JsonNode r = JsonRpc.parse(answer);
        var out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.pretty(r));
        }
        if (r.has("error")) {
            JsonNode e = r.get("error");
            String reason = e.path("data").path("reason").asText("error " + e.path("code").asInt());
            spec.commandLine().getErr().println("hostwide admin: " + reason + ": " + e.path("message").asText());
            spec.commandLine().getErr().flush();
            out.flush();
            // invalid params and unknown methods are the caller's usage errors; the rest are the server's refusals
            int code = e.path("code").asInt();
            return code == -32602 || code == -32601 ? 2 : 1;
        }
        if (!json) {
            out.println(Json.pretty(r.get("result")));
        }
        out.flush();
        return 0;
    }

    private Path path() {
        Path path = socket != null ? socket : AdminSocket.defaultPath(port);
        if (!Files.exists(path)) {
            throw new IllegalArgumentException("no hostwide serve admin socket at " + path
                    + " (is the server running? use --port or --socket)");
        }
        return path;
    }

    private int old(String command) {
        Path path = path();
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

    /** The JSON-RPC request line the words ask for; a usage error (exit 2) names what is wrong. */
    String request() {
        if (words.get(0).equals("call")) {
            if (words.size() < 2 || words.size() > 3) {
                throw new IllegalArgumentException("usage: admin call METHOD ['{json params}']");
            }
            return JsonRpc.request(1, words.get(1), words.size() == 3 ? words.get(2) : null);
        }
        if (words.size() < 2) {
            throw new IllegalArgumentException("unknown command '" + words.get(0) + "' (known: status, stats, reload, "
                    + "call, backstore, target, lun, acl, chap, portal, config; see --help)");
        }
        String key = words.get(0) + " " + words.get(1);
        Verb v = VERBS.get(key);
        if (v == null) {
            throw new IllegalArgumentException("unknown command '" + key + "' (known: "
                    + String.join(", ", VERBS.keySet().stream().sorted().toList()) + ")");
        }
        ObjectNode params = JsonNodeFactory.instance.objectNode();
        List<String> positional = new ArrayList<>();
        for (int i = 2; i < words.size(); i++) {
            String w = words.get(i);
            if (w.startsWith("--") && w.length() > 2) {
                String name = w.substring(2).replace('-', '_');
                boolean hasValue = i + 1 < words.size() && !words.get(i + 1).startsWith("--");
                if (BOOLEANS.contains(name) && (!hasValue || !isBoolean(words.get(i + 1)))) {
                    params.put(name, true); // a bare flag: --read-only
                    continue;
                }
                if (!hasValue) {
                    throw new IllegalArgumentException("--" + w.substring(2) + " needs a value");
                }
                put(params, name, words.get(++i));
            } else {
                positional.add(w);
            }
        }
        if (positional.size() > v.positionals().size()
                || positional.size() < v.positionals().size() - (OPTIONAL_LAST.contains(key) ? 1 : 0)) {
            throw new IllegalArgumentException("usage: admin " + key + " "
                    + String.join(" ", v.positionals().stream().map(p -> p.toUpperCase(java.util.Locale.ROOT)).toList())
                    + " [--param value]...");
        }
        for (int i = 0; i < positional.size(); i++) {
            put(params, v.positionals().get(i), positional.get(i));
        }
        return JsonRpc.request(1, v.method(), params.toString());
    }

    private static boolean isBoolean(String s) {
        return s.equals("true") || s.equals("false");
    }

    /** Typed as the API wants it: LUN numbers and block sizes are integers, flags booleans, the rest text. */
    private static void put(ObjectNode params, String name, String value) {
        if (INTEGERS.contains(name)) {
            try {
                params.put(name, Integer.parseInt(value));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + name.replace('_', '-') + ": '" + value + "' is not an integer");
            }
        } else if (BOOLEANS.contains(name)) {
            if (!isBoolean(value)) {
                throw new IllegalArgumentException("--" + name.replace('_', '-') + ": '" + value + "' is not true or false");
            }
            params.put(name, Boolean.parseBoolean(value));
        } else {
            params.put(name, value);
        }
    }
}
