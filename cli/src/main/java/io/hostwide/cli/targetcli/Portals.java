package io.hostwide.cli.targetcli;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Map;

/**
 * {@code /iscsi/IQN/tpg1/portals}: create and delete open and close serve's portals live ({@code portal_create},
 * {@code portal_delete}). serve's portals are the server's, not one TPG's: every target is reachable through each, as
 * on a LIO host where every TPG has the same portals (targetcli gives each new TPG the default portal [::0]:3260).
 * Output lines are targetcli-fb's {@code UIPortals.ui_command_create/delete} (src/targetcli/ui_target.py).
 */
final class Portals {
    /** targetcli's default_portal_listen (ui_target.py): IN6ADDR_ANY, dual-stack, so IPv4 too. */
    static final String DEFAULT_LISTEN = "::0";
    static final int DEFAULT_PORT = 3260;

    private Portals() {
    }

    /** A portal's node name as targetcli lists it: rtslib keeps IPv6 addresses in brackets ("[::0]:3260"). */
    static String name(String ip, int port) {
        return (ip.indexOf(':') >= 0 && !ip.startsWith("[") ? "[" + ip + "]" : ip) + ":" + port;
    }

    /** The address as rtslib takes it, brackets off (the API takes a bare literal; it accepts brackets too). */
    private static String bare(String ip) {
        return ip.startsWith("[") && ip.endsWith("]") ? ip.substring(1, ip.length() - 1) : ip;
    }

    private static int port(String v) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            // configshell's 'number' type: ui_eval_param raises on anything but digits
            throw new Shell.Failure("Invalid value '" + v + "' for ip_port (a number)");
        }
    }

    /** Whether the portal node {@code name} ("IP:PORT", IPv6 in brackets) exists: serve listens there now. */
    static boolean served(Shell sh, String name) {
        for (JsonNode p : sh.api.call("portal_list", null)) {
            String ip = p.path("ip_address").asText();
            int port = p.path("port").asInt();
            if (name.equals(name(ip, port)) || sameAddress(name, ip, port)) {
                return true;
            }
        }
        return false;
    }

    /** "[::0]:3260" names the portal the server lists as "0:0:0:0:0:0:0:0", 3260. */
    private static boolean sameAddress(String name, String ip, int port) {
        int colon = name.lastIndexOf(':');
        if (colon < 0 || !name.substring(colon + 1).equals(Integer.toString(port))) {
            return false;
        }
        String host = bare(name.substring(0, colon));
        if (!io.hostwide.management.config.Portal.isAddressLiteral(host)) {
            return false; // never a name lookup for a path
        }
        try {
            return java.net.InetAddress.getByName(host)
                    .equals(java.net.InetAddress.getByName(ip));
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    static void create(Shell sh, Node at, List<String> args) {
        Commands.require(sh, at);
        Map<String, String> a = Shell.bind(args, List.of("ip_address", "ip_port"));
        String ip = a.getOrDefault("ip_address", DEFAULT_LISTEN);
        int port = a.containsKey("ip_port") ? port(a.get("ip_port")) : DEFAULT_PORT;
        if (port == DEFAULT_PORT) {
            sh.out.println("Using default IP port " + DEFAULT_PORT);
        }
        if (ip.equals(DEFAULT_LISTEN)) {
            sh.out.println("Binding to INADDR_ANY (" + DEFAULT_LISTEN + ")");
        }
        JsonNode r = sh.api.call("portal_create", Api.params().put("ip_address", bare(ip)).put("port", port));
        // targetcli prints the address as given, unbracketed: "Created network portal ::0:3260."
        sh.out.println(r.path("created").asBoolean() ? "Created network portal " + ip + ":" + port + "."
                : "Network portal " + name(bare(ip), port) + " already exists; unchanged.");
        for (JsonNode w : r.path("warnings")) {
            sh.err.println("hostwide targetcli: warning: " + w.asText());
        }
    }

    static void delete(Shell sh, Node at, List<String> args) {
        Commands.require(sh, at);
        Map<String, String> a = Shell.bind(args, List.of("ip_address", "ip_port"));
        Commands.need(a, "ip_address");
        Commands.need(a, "ip_port");
        String ip = a.get("ip_address");
        int port = port(a.get("ip_port"));
        JsonNode r = sh.api.call("portal_delete", Api.params().put("ip_address", bare(ip)).put("port", port));
        // targetcli's line has no full stop: "Deleted network portal 0.0.0.0:3260"
        sh.out.println(r.path("deleted").asBoolean() ? "Deleted network portal " + ip + ":" + port
                : "No network portal " + name(bare(ip), port) + "; nothing to delete.");
    }
}
