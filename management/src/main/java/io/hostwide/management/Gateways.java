package io.hostwide.management;

import io.hostwide.management.config.ServeConfig;
import io.hostwide.tcm.TargetCore;
import io.hostwide.tcm.alua.GatewayAlua;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.Lun;
import io.hostwide.tcm.lu.TargetPortGroup;
import io.hostwide.tcm.port.TargetPort;
import io.hostwide.tcm.spi.SharedOwnership;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The {@code gateway} section applied (issue 16): every exported LU's exports move into an ALUA target port group
 * whose id is the gateway's port group, and an LU whose backstore can be shared between gateways (an RBD image with
 * the exclusive-lock feature) gets a {@link GatewayAlua} that keeps its groups' states on the image's lock.
 */
final class Gateways {
    private Gateways() {}

    /** How often each gateway re-reads ownership and the other gateways' groups. */
    static final long POLL_MILLIS = 500;

    static List<GatewayAlua> start(ServeConfig.Gateway gateway, TargetCore core, Collection<TargetPort> ports,
                                   Consumer<String> summary) {
        List<GatewayAlua> started = new ArrayList<>();
        if (gateway == null) {
            return started;
        }
        try {
            exports(gateway, ports).forEach((d, rtpis) -> startOne(gateway, d, rtpis, started, summary));
        } catch (RuntimeException e) {
            started.forEach(GatewayAlua::close);
            throw e;
        }
        return started;
    }

    /**
     * After a reload changed the LUNs (issue 16): the exports a reload added move into the gateway's port group,
     * an LU newly exported gets its {@link GatewayAlua} as at start, and the policy of an LU no longer exported
     * through any port is closed (it leaves the shared table: see {@link GatewayAlua#close()}), before its
     * backstore closes.
     *
     * @param running the policies in force, updated here
     */
    static void reconcile(ServeConfig.Gateway gateway, Collection<TargetPort> ports, List<GatewayAlua> running,
                          Consumer<String> changes) {
        if (gateway == null) {
            return;
        }
        Map<Device, List<Integer>> exported = exports(gateway, ports);
        for (java.util.Iterator<GatewayAlua> it = running.iterator(); it.hasNext(); ) {
            GatewayAlua ga = it.next();
            if (!exported.containsKey(ga.device())) {
                ga.close();
                it.remove();
                changes.accept("gateway " + gateway.name() + ": " + ga.device().name()
                        + " no longer exported; left its shared ALUA table");
            }
        }
        exported.forEach((d, rtpis) -> {
            if (running.stream().noneMatch(ga -> ga.device() == d)) {
                startOne(gateway, d, rtpis, running, changes);
            }
        });
    }

    /** Every exported LU with this gateway's relative port ids; each export is moved into the gateway's group. */
    private static Map<Device, List<Integer>> exports(ServeConfig.Gateway gateway, Collection<TargetPort> ports) {
        Map<Device, List<Integer>> exported = new LinkedHashMap<>();
        for (TargetPort port : ports) {
            for (Lun lun : port.luns()) {
                Device d = lun.device();
                TargetPortGroup g = d.alua().group(gateway.portGroup());
                if (g == null) {
                    g = d.alua().addGroup(gateway.portGroup(), gateway.name());
                }
                d.alua().assign(lun, g);
                List<Integer> rtpis = exported.computeIfAbsent(d, k -> new ArrayList<>());
                if (!rtpis.contains(port.relativePortId())) {
                    rtpis.add(port.relativePortId());
                }
            }
        }
        return exported;
    }

    private static void startOne(ServeConfig.Gateway gateway, Device d, List<Integer> rtpis,
                                 List<GatewayAlua> started, Consumer<String> summary) {
        GatewayAlua.Mode mode = gateway.explicit() ? GatewayAlua.Mode.EXPLICIT : GatewayAlua.Mode.IMPLICIT;
        SharedOwnership o = d.backstore() instanceof SharedOwnership.Source s ? s.sharedOwnership() : null;
        if (o == null) {
            summary.accept("gateway " + gateway.name() + ": " + d.name() + " in port group "
                    + gateway.portGroup() + " (not shareable: Active/Optimized here only)");
            return;
        }
        GatewayAlua ga = GatewayAlua.start(d, o, d.alua().group(gateway.portGroup()), gateway.name(), mode,
                rtpis, POLL_MILLIS);
        ga.releaseTimeout(gateway.handoverTimeout()); // before any write: start() itself never breaks a lock
        started.add(ga);
        summary.accept("gateway " + gateway.name() + ": " + d.name() + " (" + o.identity() + ") in port group "
                + gateway.portGroup() + ", " + mode.name().toLowerCase(java.util.Locale.ROOT) + " ALUA, "
                + (ga.owner() ? "owner (Active/Optimized)" : "not the owner"));
    }
}
