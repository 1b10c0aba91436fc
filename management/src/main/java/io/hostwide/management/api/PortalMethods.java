package io.hostwide.management.api;

import io.hostwide.management.config.Portal;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * portal_*: the network portals serve listens on, opened and closed live (LIO's {@code tpg1/portals create|delete}).
 * hostwide's portals are the server's: every target is reachable through each, as when every LIO TPG has the same
 * portals (targetcli's default portal 0.0.0.0:3260 on each new target). A deleted portal takes no new connections;
 * sessions logged in through it go on until they log out (LIO's iscsit_tpg_del_network_portal closes the listener
 * and the logins in progress, not the sessions). With serve's {@code --listen} the command line fixes the portals and
 * these calls are refused ({@code portals_fixed}).
 */
final class PortalMethods {
    private PortalMethods() {
    }

    static void register(ManagementApi api) {
        api.method("portal_list", List.of(), "the network portals listened on",
                p -> api.assembly().boundAddresses().stream()
                        .map(a -> portal(a.getAddress().getHostAddress(), a.getPort())).toList());
        api.method("portal_create", List.of("ip_address", "port"),
                "listen on ip_address:port (default port 3260; 0.0.0.0 or :: for every address) from now on",
                p -> create(api, portalOf(p)));
        api.method("portal_delete", List.of("ip_address", "port"),
                "stop listening on ip_address:port: new connections are refused, logged-in sessions go on",
                p -> delete(api, portalOf(p)));
    }

    /** The portal a call names: an IP address literal (rtslib's brackets around IPv6 allowed) and a port. */
    static Portal portalOf(Params p) {
        String ip = p.string("ip_address").trim();
        if (ip.startsWith("[") && ip.endsWith("]")) {
            ip = ip.substring(1, ip.length() - 1);
        }
        if (!Portal.isAddressLiteral(ip)) {
            throw ApiException.badParam("ip_address", "'" + p.string("ip_address") + "' is not an IP address (a "
                    + "portal is an address of this host, or 0.0.0.0 or :: for all of them)");
        }
        Integer port = p.optInt("port");
        int n = port == null ? Portal.DEFAULT_PORT : port;
        if (n < 1 || n > 65535) {
            throw ApiException.badParam("port", "port " + n + " is out of range (1..65535)");
        }
        return new Portal(ip, n);
    }

    private static ApiException fixed(String by) {
        return ApiException.domain(ApiException.Reason.PORTALS_FIXED, "portals are fixed by serve's " + by
                + ": restart serve without --listen to manage them (the configuration's \"portals\" are then used)");
    }

    /** The portals in force: those listened on when --listen fixes them, else the configuration's. */
    private static List<InetSocketAddress> inForce(ManagementApi api) {
        return api.assembly().portalsFixedBy() != null ? api.assembly().boundAddresses()
                : Portal.ofConfig(api.current()).stream().map(Portal::resolve).toList();
    }

    private static Object create(ManagementApi api, Portal want) {
        InetSocketAddress a = want.resolve();
        if (inForce(api).contains(a)) { // idempotent, --listen or not: it is there
            Map<String, Object> r = ManagementApi.result("created", false);
            r.put("portal", portal(want));
            return r;
        }
        String by = api.assembly().portalsFixedBy();
        if (by != null) {
            throw fixed(by);
        }
        List<String> next = new ArrayList<>(Portal.ofConfig(api.current()).stream().map(Portal::toString).toList());
        next.add(want.toString());
        api.change(c -> ManagementApi.withPortals(c, next));
        Map<String, Object> r = ManagementApi.result("created", true);
        r.put("portal", portal(want));
        List<String> warnings = api.portalWarnings(List.of(want));
        if (!warnings.isEmpty()) {
            r.put("warnings", warnings);
        }
        return r;
    }

    private static Object delete(ManagementApi api, Portal gone) {
        InetSocketAddress a = gone.resolve();
        if (!inForce(api).contains(a)) {
            return ManagementApi.result("deleted", false);
        }
        String by = api.assembly().portalsFixedBy();
        if (by != null) {
            throw fixed(by);
        }
        List<String> next = Portal.ofConfig(api.current()).stream().filter(h -> !h.resolve().equals(a))
                .map(Portal::toString).toList();
        api.change(c -> ManagementApi.withPortals(c, next));
        Map<String, Object> r = ManagementApi.result("deleted", true);
        r.put("portal", portal(gone));
        return r;
    }

    private static Map<String, Object> portal(Portal p) {
        return portal(p.host(), p.port());
    }

    private static Map<String, Object> portal(String ip, int port) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ip_address", ip);
        m.put("port", port);
        return m;
    }
}
