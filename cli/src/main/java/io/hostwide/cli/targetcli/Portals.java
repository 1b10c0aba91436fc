package io.hostwide.cli.targetcli;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code /iscsi/IQN/tpg1/portals}: serve listens on its portals ({@code --listen} or the configuration's
 * {@code portals}) for every target, and they cannot change while it runs; a create of a portal already served
 * succeeds, anything else is refused saying what to do instead.
 */
final class Portals {
    private Portals() {
    }

    private static List<String> portals(Shell sh) {
        List<String> out = new ArrayList<>();
        for (JsonNode p : sh.api.call("portal_list", null)) {
            out.add(p.path("ip_address").asText() + ":" + p.path("port").asInt());
        }
        return out;
    }

    /** Whether serve listens on {@code ip:port}, itself or through a wildcard address on that port. */
    static boolean served(Shell sh, String ipPort) {
        int colon = ipPort.lastIndexOf(':');
        String port = ipPort.substring(colon + 1);
        for (String p : portals(sh)) {
            if (p.equals(ipPort) || p.equals("0.0.0.0:" + port) || p.equals("[::]:" + port) || p.equals("::" + ":"
                    + port)) {
                return true;
            }
        }
        return false;
    }

    static void create(Shell sh, Node at, List<String> args) {
        Commands.require(sh, at);
        Map<String, String> a = Shell.bind(args, List.of("ip_address", "ip_port"), "create ip_address [ip_port]");
        String ip = a.getOrDefault("ip_address", "0.0.0.0");
        String port = a.getOrDefault("ip_port", "3260");
        String want = (ip.contains(":") && !ip.startsWith("[") ? "[" + ip + "]" : ip) + ":" + port;
        if (served(sh, want)) {
            sh.out.println("Portal " + want + " is served already (hostwide serves every target on all its portals).");
            return;
        }
        throw new Shell.Failure("Cannot create portal " + want + ": hostwide serve listens on the same portals for "
                + "every target (now " + String.join(", ", portals(sh)) + ") and they cannot change while it runs; "
                + "add it to --listen or to the configuration's \"portals\" and restart serve");
    }

    static void delete(Shell sh, Node at, List<String> args) {
        Commands.require(sh, at);
        Shell.bind(args, List.of("ip_address", "ip_port"), "delete ip_address ip_port");
        throw new Shell.Failure("Cannot delete a portal of one target: hostwide serve listens on the same portals "
                + "for every target (now " + String.join(", ", portals(sh)) + "); change --listen or the "
                + "configuration's \"portals\" and restart serve");
    }
}
