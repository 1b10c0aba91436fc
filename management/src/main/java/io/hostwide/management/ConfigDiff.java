package io.hostwide.management;

import io.hostwide.management.config.ServeConfig;

import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.Lun;
import io.hostwide.tcm.port.MappedLun;
import io.hostwide.tcm.port.NodeAcl;
import io.hostwide.tcm.port.TargetPort;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** What a configuration reload may change live (LUN maps, ACLs, new backstores), and how. */
final class ConfigDiff {

    private final ServeConfig before;
    private final ServeConfig after;

    ConfigDiff(ServeConfig before, ServeConfig after) {
        this.before = before;
        this.after = after;
    }

    /** Throws naming every change that needs a restart; nothing has been applied at that point. */
    void refuseRestartOnlyChanges() {
        List<String> restart = new ArrayList<>();
        if (!Objects.equals(before.portals(), after.portals())) {
            restart.add("portals");
        }
        if (!Objects.equals(before.session(), after.session())) {
            restart.add("session");
        }
        if (!Objects.equals(before.limits(), after.limits())) {
            restart.add("limits");
        }
        if (!Objects.equals(before.discoveryAuth(), after.discoveryAuth())) {
            restart.add("discovery_auth");
        }
        if (!Objects.equals(before.metrics(), after.metrics())) { // the HTTP listener is bound once, at startup
            restart.add("metrics");
        }
        Map<String, ServeConfig.Target> was = byName(before.targets());
        Map<String, ServeConfig.Target> now = byName(after.targets());
        if (!was.keySet().equals(now.keySet())) {
            restart.add("the set of targets");
        }
        now.forEach((name, t) -> {
            ServeConfig.Target old = was.get(name);
            if (old != null && (!Objects.equals(old.auth(), t.auth()) || !Objects.equals(old.alias(), t.alias()))) {
                restart.add("auth/alias of " + name);
            }
        });
        Map<String, ServeConfig.Backstore> oldStores = before.backstores() == null ? Map.of() : before.backstores();
        Map<String, ServeConfig.Backstore> newStores = after.backstores() == null ? Map.of() : after.backstores();
        oldStores.forEach((name, b) -> {
            ServeConfig.Backstore nb = newStores.get(name);
            if (nb != null && !nb.equals(b)) {
                restart.add("backstores." + name);
            }
        });
        if (!restart.isEmpty()) {
            throw new IllegalArgumentException("reload refused, nothing changed: " + String.join(", ", restart)
                    + " can only change with a restart");
        }
    }

    ServeConfig.Target oldTarget(String name) {
        return byName(before.targets()).get(name);
    }

    private static Map<String, ServeConfig.Target> byName(List<ServeConfig.Target> targets) {
        Map<String, ServeConfig.Target> m = new HashMap<>();
        if (targets != null) {
            targets.forEach(t -> m.put(t.name(), t));
        }
        return m;
    }

    /** Makes the port's LUNs those of {@code t}: removes, replaces and adds as needed. */
    static List<String> applyLuns(TargetPort port, ServeConfig.Target t, Map<String, Device> devices) {
        List<String> changes = new ArrayList<>();
        Map<Integer, String> want = new HashMap<>();
        for (ServeConfig.Lun l : t.luns() == null ? List.<ServeConfig.Lun>of() : t.luns()) {
            want.put(l.lun(), l.backstore());
        }
        for (Lun have : port.luns()) {
            String store = want.get(have.lunNumber());
            if (store == null || !store.equals(have.device().name())) {
                port.removeLun(have.lunNumber());
                changes.add(t.name() + ": removed LUN " + have.lunNumber() + " (" + have.device().name() + ")");
            }
        }
        want.forEach((lun, store) -> {
            if (port.lun(lun) == null) {
                port.addLun(lun, devices.get(store));
                changes.add(t.name() + ": LUN " + lun + " = " + store);
            }
        });
        return changes;
    }

    /** Makes the port's ACLs (or demo mode) those of {@code t}; {@code old} says which ACLs exist now. */
    static List<String> applyAcls(TargetPort port, ServeConfig.Target old, ServeConfig.Target t) {
        List<String> changes = new ArrayList<>();
        if (t.acls() == null) {
            if (!port.demoMode()) {
                port.demoMode(true, false);
                changes.add(t.name() + ": open to any initiator (no acls)");
            }
            if (old != null && old.acls() != null) {
                for (ServeConfig.Acl a : old.acls()) {
                    port.removeAcl(a.initiator());
                    changes.add(t.name() + ": removed ACL " + a.initiator());
                }
            }
            return changes;
        }
        Set<String> wanted = new HashSet<>();
        for (ServeConfig.Acl a : t.acls()) {
            wanted.add(a.initiator());
            boolean existed = port.acl(a.initiator()) != null;
            NodeAcl acl = port.addAcl(a.initiator());
            if (!existed) {
                changes.add(t.name() + ": added ACL " + a.initiator());
            }
            changes.addAll(applyMappings(t.name(), acl, a));
        }
        // ACLs first, demo mode off second: an admitted initiator never loses access in between.
        if (port.demoMode()) {
            port.demoMode(false, false);
            changes.add(t.name() + ": only listed initiators admitted");
        }
        if (old != null && old.acls() != null) {
            for (ServeConfig.Acl a : old.acls()) {
                if (!wanted.contains(a.initiator())) {
                    port.removeAcl(a.initiator());
                    changes.add(t.name() + ": removed ACL " + a.initiator());
                }
            }
        }
        return changes;
    }

    private static List<String> applyMappings(String target, NodeAcl acl, ServeConfig.Acl a) {
        List<String> changes = new ArrayList<>();
        Map<Integer, ServeConfig.MappedLun> want = new HashMap<>();
        for (ServeConfig.MappedLun m : a.luns() == null ? List.<ServeConfig.MappedLun>of() : a.luns()) {
            want.put(m.mappedLun() == null ? m.lun() : m.mappedLun(), m);
        }
        for (MappedLun have : acl.mappedLuns()) {
            ServeConfig.MappedLun w = want.get(have.mappedLun());
            if (w == null || w.lun() != have.lun().lunNumber() || Boolean.TRUE.equals(w.readOnly()) != have.readOnly()) {
                acl.unmap(have.mappedLun());
                if (w == null) {
                    changes.add(target + ": " + a.initiator() + " no longer sees LUN " + have.mappedLun());
                }
            }
        }
        want.forEach((mapped, m) -> {
            boolean present = acl.mappedLuns().stream().anyMatch(x -> x.mappedLun() == mapped);
            if (!present) {
                acl.map(mapped, m.lun(), Boolean.TRUE.equals(m.readOnly()));
                changes.add(target + ": " + a.initiator() + " sees LUN " + m.lun() + " as " + mapped
                        + (Boolean.TRUE.equals(m.readOnly()) ? " (read-only)" : ""));
            }
        });
        return changes;
    }
}
