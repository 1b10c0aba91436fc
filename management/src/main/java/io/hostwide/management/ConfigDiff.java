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

    /**
     * Throws naming every change that needs a restart; nothing has been applied at that point. Live: portals (see
     * {@link TargetAssembly#reload}), targets added and removed, their LUNs, ACLs, CHAP and alias, discovery CHAP,
     * backstores added and removed, and of an existing backstore its size (when its kind can be resized),
     * write_protect and removable.
     */
    void refuseRestartOnlyChanges() {
        List<String> restart = new ArrayList<>();
        if (!Objects.equals(before.session(), after.session())) {
            restart.add("session");
        }
        if (!Objects.equals(before.limits(), after.limits())) {
            restart.add("limits");
        }
        if (!Objects.equals(before.metrics(), after.metrics())) { // the HTTP listener is bound once, at startup
            restart.add("metrics");
        }
        if (!Objects.equals(before.gateway(), after.gateway())) { // TPGTs, port ids and ALUA are set up once
            restart.add("gateway");
        }
        Map<String, ServeConfig.Backstore> oldStores = stores(before);
        Map<String, ServeConfig.Backstore> newStores = stores(after);
        oldStores.forEach((name, b) -> {
            ServeConfig.Backstore nb = newStores.get(name);
            if (nb != null && !nb.equals(b) && !liveOnly(b, nb)) {
                restart.add("backstores." + name);
            }
        });
        if (!restart.isEmpty()) {
            throw new RestartRequiredException("reload refused, nothing changed: " + String.join(", ", restart)
                    + " can only change with a restart");
        }
    }

    /** Kinds of backstore whose capacity can change while exported. */
    static boolean resizable(String type) {
        return "file".equals(type) || "null".equals(type);
    }

    /** Whether {@code a} and {@code b} differ only in what {@link TargetAssembly} can change on a live device. */
    static boolean liveOnly(ServeConfig.Backstore a, ServeConfig.Backstore b) {
        ServeConfig.Backstore sameLive = new ServeConfig.Backstore(a.type(),
                resizable(a.type()) ? b.size() : a.size(), a.path(), a.blockSize(), a.thin(), a.queueDepth(),
                a.writeCache(), a.direct(), b.removable(), b.writeProtect(), a.physicalBlockSize(), a.sanitizeRate(),
                a.pool(), a.image(), a.conf(), a.id(), a.keyring(), a.opTimeout(),
                a.reservations());
        return sameLive.equals(b);
    }

    static Map<String, ServeConfig.Backstore> stores(ServeConfig c) {
        return c.backstores() == null ? Map.of() : c.backstores();
    }

    static Map<String, ServeConfig.Target> targets(ServeConfig c) {
        Map<String, ServeConfig.Target> m = new java.util.LinkedHashMap<>();
        if (c.targets() != null) {
            c.targets().forEach(t -> m.put(t.name(), t));
        }
        return m;
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
