package io.hostwide.management.api;

import io.hostwide.management.config.ServeConfig;
import io.hostwide.tcm.core.Session;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/** target_* and lun_*: iSCSI targets (one portal group, TPG 1, each) and their LUNs. */
final class TargetMethods {
    private TargetMethods() {
    }

    static void register(ManagementApi api) {
        api.method("target_create", List.of("name", "alias", "generate_node_acls", "user", "secret", "mutual_user",
                        "mutual_secret"),
                "create a target; no initiator may log in until an ACL is created or generate_node_acls is true",
                p -> create(api, p));
        api.method("target_delete", List.of("name"), "delete a target; its sessions end",
                p -> delete(api, p.string("name")));
        api.method("target_list", List.of(), "every target: name, LUN/ACL/session counts", p -> list(api));
        api.method("target_get", List.of("name"), "one target: LUNs, ACLs, CHAP user, sessions",
                p -> describe(api, ManagementApi.requireTarget(api.current(), p.string("name"))));
        api.method("target_set_attributes", List.of("name", "alias", "generate_node_acls"),
                "alias (for new logins); generate_node_acls: any initiator may log in and sees every LUN",
                p -> setAttributes(api, p));
        api.method("lun_create", List.of("target", "backstore", "lun", "map_to_acls"),
                "export a backstore as a LUN (lowest free number unless given); mapped into every ACL by default",
                p -> createLun(api, p));
        api.method("lun_delete", List.of("target", "lun"),
                "remove a LUN: new commands to it fail, in-flight ones finish, sessions get REPORTED LUNS DATA HAS CHANGED",
                p -> deleteLun(api, p.string("target"), p.integer("lun")));
        api.method("lun_list", List.of("target"), "a target's LUNs",
                p -> luns(ManagementApi.requireTarget(api.current(), p.string("target"))));
    }

    private static Object create(ManagementApi api, Params p) {
        String name = p.string("name");
        String alias = p.optString("alias");
        boolean demo = Boolean.TRUE.equals(p.optBool("generate_node_acls"));
        // CHAP at creation: beyond loopback serve refuses targets without it, so it cannot come in a second call
        ServeConfig.Chap auth = p.has("user") || p.has("secret") ? new ServeConfig.Chap(p.string("user"),
                p.string("secret"), p.optString("mutual_user"), p.optString("mutual_secret")) : null;
        ServeConfig.Target existing = ManagementApi.target(api.current(), name);
        if (existing != null) {
            boolean same = Objects.equals(existing.alias(), alias)
                    && (!p.has("generate_node_acls") || (existing.acls() == null) == demo)
                    && (auth == null || auth.equals(existing.auth()));
            if (!same) {
                throw ApiException.domain(ApiException.Reason.EXISTS, "target " + name + " exists with another "
                        + "alias or generate_node_acls").with("existing", summary(api, existing));
            }
            return created(api, name, false);
        }
        // LIO's default (generate_node_acls=0): a new target admits nobody until it is given ACLs or demo mode
        ServeConfig.Target t = new ServeConfig.Target(name, alias, auth, List.of(), demo ? null : List.of());
        api.change(c -> ManagementApi.replaceTarget(c, t));
        return created(api, name, true);
    }

    private static Map<String, Object> created(ManagementApi api, String name, boolean created) {
        Map<String, Object> m = ManagementApi.result("created", created);
        m.put("target", summary(api, ManagementApi.target(api.current(), name)));
        return m;
    }

    private static Object delete(ManagementApi api, String name) {
        if (ManagementApi.target(api.current(), name) == null) {
            return ManagementApi.result("deleted", false);
        }
        api.change(c -> ManagementApi.withTargets(c, ManagementApi.targets(c).stream()
                .filter(t -> !t.name().equals(name)).toList()));
        return ManagementApi.result("deleted", true);
    }

    private static Object setAttributes(ManagementApi api, Params p) {
        ServeConfig.Target t = ManagementApi.requireTarget(api.current(), p.string("name"));
        String alias = p.has("alias") ? p.optString("alias") : t.alias();
        List<ServeConfig.Acl> acls = t.acls();
        Boolean demo = p.optBool("generate_node_acls");
        if (Boolean.TRUE.equals(demo) && acls != null && !acls.isEmpty()) {
            throw ApiException.domain(ApiException.Reason.IN_USE, "target " + t.name() + " has ACLs; delete them "
                    + "before generate_node_acls=true (this server has either ACLs or demo mode)");
        }
        if (demo != null) {
            acls = demo ? null : (acls == null ? List.of() : acls);
        }
        ServeConfig.Target n = new ServeConfig.Target(t.name(), alias, t.auth(), t.luns(), acls);
        List<String> changes = api.change(c -> ManagementApi.replaceTarget(c, n));
        Map<String, Object> r = ManagementApi.result("changed", !changes.isEmpty());
        r.put("target", summary(api, n));
        return r;
    }

    private static Object createLun(ManagementApi api, Params p) {
        ServeConfig.Target t = ManagementApi.requireTarget(api.current(), p.string("target"));
        String store = BackstoreMethods.require(api.current(), p.string("backstore"));
        Integer want = p.optInt("lun");
        List<ServeConfig.Lun> luns = t.luns() == null ? List.of() : t.luns();
        for (ServeConfig.Lun l : luns) {
            if (want != null && l.lun().equals(want)) {
                if (!l.backstore().equals(store)) {
                    throw ApiException.domain(ApiException.Reason.CONFLICT, "LUN " + want + " of " + t.name()
                            + " exports " + l.backstore()).with("lun", want).with("backstore", l.backstore());
                }
                return lunResult(false, want);
            }
            if (want == null && l.backstore().equals(store)) { // a retried "create" without a number: the same LUN
                return lunResult(false, l.lun());
            }
        }
        int lun = want != null ? want : lowestFree(luns);
        List<ServeConfig.Lun> nl = new ArrayList<>(luns);
        nl.add(new ServeConfig.Lun(lun, store));
        List<ServeConfig.Acl> acls = t.acls();
        if (acls != null && !Boolean.FALSE.equals(p.optBool("map_to_acls"))) { // LIO auto_add_mapped_luns=1
            List<ServeConfig.Acl> na = new ArrayList<>();
            for (ServeConfig.Acl a : acls) {
                List<ServeConfig.MappedLun> ml = a.luns() == null ? new ArrayList<>() : new ArrayList<>(a.luns());
                boolean taken = ml.stream().anyMatch(m -> AclMethods.mapped(m) == lun);
                if (!taken) {
                    ml.add(new ServeConfig.MappedLun(lun, null, null));
                }
                na.add(new ServeConfig.Acl(a.initiator(), a.auth(), ml));
            }
            acls = na;
        }
        ServeConfig.Target n = ManagementApi.withLunsAndAcls(t, nl, acls);
        api.change(c -> ManagementApi.replaceTarget(c, n));
        return lunResult(true, lun);
    }

    private static Map<String, Object> lunResult(boolean created, int lun) {
        Map<String, Object> m = ManagementApi.result("created", created);
        m.put("lun", lun);
        return m;
    }

    private static int lowestFree(List<ServeConfig.Lun> luns) {
        TreeSet<Integer> used = new TreeSet<>();
        luns.forEach(l -> used.add(l.lun()));
        int n = 0;
        while (used.contains(n)) {
            n++;
        }
        return n;
    }

    private static Object deleteLun(ManagementApi api, String target, int lun) {
        ServeConfig.Target t = ManagementApi.requireTarget(api.current(), target);
        List<ServeConfig.Lun> luns = t.luns() == null ? List.of() : t.luns();
        if (luns.stream().noneMatch(l -> l.lun() == lun)) {
            return ManagementApi.result("deleted", false);
        }
        List<ServeConfig.Lun> nl = luns.stream().filter(l -> l.lun() != lun).toList();
        List<ServeConfig.Acl> acls = t.acls() == null ? null : t.acls().stream() // LIO drops the mapped LUNs too
                .map(a -> new ServeConfig.Acl(a.initiator(), a.auth(), a.luns() == null ? null
                        : a.luns().stream().filter(m -> m.lun() != lun).toList())).toList();
        api.change(c -> ManagementApi.replaceTarget(c, ManagementApi.withLunsAndAcls(t, nl, acls)));
        return ManagementApi.result("deleted", true);
    }

    private static List<Map<String, Object>> luns(ServeConfig.Target t) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (ServeConfig.Lun l : t.luns() == null ? List.<ServeConfig.Lun>of() : t.luns()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("lun", l.lun());
            m.put("backstore", l.backstore());
            out.add(m);
        }
        return out;
    }

    private static Object list(ManagementApi api) {
        Map<String, Integer> sessions = sessionCounts(api);
        return ManagementApi.targets(api.current()).stream().map(t -> {
            Map<String, Object> m = summary(api, t);
            m.put("sessions", sessions.getOrDefault(t.name(), 0));
            return m;
        }).toList();
    }

    private static Map<String, Integer> sessionCounts(ManagementApi api) {
        Map<String, Integer> m = new LinkedHashMap<>();
        for (Session s : api.assembly().core().sessions()) {
            m.merge(s.port().target().name(), 1, Integer::sum);
        }
        return m;
    }

    private static Map<String, Object> summary(ManagementApi api, ServeConfig.Target t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", t.name());
        m.put("alias", t.alias());
        m.put("tpgt", ServeConfig.Gateway.portGroupOf(api.current().gateway())); // the gateway's port group
        m.put("generate_node_acls", t.acls() == null);
        m.put("chap_user", t.auth() == null ? null : t.auth().user());
        m.put("luns", t.luns() == null ? 0 : t.luns().size());
        m.put("acls", t.acls() == null ? 0 : t.acls().size());
        return m;
    }

    private static Object describe(ManagementApi api, ServeConfig.Target t) {
        Map<String, Object> m = summary(api, t);
        m.put("luns", luns(t));
        m.put("acls", t.acls() == null ? List.of() : t.acls().stream().map(AclMethods::describe).toList());
        m.put("sessions", api.assembly().core().sessions().stream()
                .filter(s -> s.port().target().name().equals(t.name()))
                .map(s -> Map.of("initiator", s.initiatorName(), "initiator_port", s.initiatorPortName())).toList());
        return m;
    }
}
