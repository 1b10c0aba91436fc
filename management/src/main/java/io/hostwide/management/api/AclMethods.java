package io.hostwide.management.api;

import io.hostwide.management.config.ServeConfig;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** acl_* (node ACLs with mapped LUNs, LIO's acls/&lt;initiator&gt;/lun_N) and chap_* (target and discovery CHAP). */
final class AclMethods {
    private AclMethods() {
    }

    static void register(ManagementApi api) {
        api.method("acl_create", List.of("target", "initiator", "luns"),
                "admit an initiator; luns [{lun, mapped_lun, read_only}] (default: every LUN, read-write)",
                p -> create(api, p));
        api.method("acl_delete", List.of("target", "initiator"), "remove an initiator's ACL; its sessions lose their LUNs",
                p -> delete(api, p.string("target"), p.string("initiator")));
        api.method("acl_list", List.of("target"), "a target's ACLs with their mapped LUNs",
                p -> acls(ManagementApi.requireTarget(api.current(), p.string("target"))).stream()
                        .map(AclMethods::describe).toList());
        api.method("acl_map_lun", List.of("target", "initiator", "lun", "mapped_lun", "read_only"),
                "show LUN lun to the initiator as mapped_lun (default: the same number)", p -> map(api, p));
        api.method("acl_unmap_lun", List.of("target", "initiator", "mapped_lun"), "hide a mapped LUN",
                p -> unmap(api, p.string("target"), p.string("initiator"), p.integer("mapped_lun")));
        api.method("chap_set", List.of("target", "initiator", "user", "secret", "mutual_user", "mutual_secret"),
                "CHAP for logins to a target, to it from one initiator (its ACL's own), or for discovery when no target "
                        + "is given (new logins)",
                p -> chapSet(api, p));
        api.method("chap_clear", List.of("target", "initiator"),
                "no CHAP for a target, for an initiator's ACL (the target's applies again), or for discovery",
                p -> chapClear(api, p));
    }

    static int mapped(ServeConfig.MappedLun m) {
        return m.mappedLun() == null ? m.lun() : m.mappedLun();
    }

    private static List<ServeConfig.Acl> acls(ServeConfig.Target t) {
        return t.acls() == null ? List.of() : t.acls();
    }

    private static ServeConfig.Acl find(ServeConfig.Target t, String initiator) {
        return acls(t).stream().filter(a -> a.initiator().equals(initiator)).findFirst().orElse(null);
    }

    private static ServeConfig.Acl require(ServeConfig.Target t, String initiator) {
        ServeConfig.Acl a = find(t, initiator);
        if (a == null) {
            throw ApiException.domain(ApiException.Reason.NOT_FOUND, "no ACL for " + initiator + " on " + t.name())
                    .with("initiator", initiator);
        }
        return a;
    }

    /** {@code t} with {@code acl} replacing the ACL of its initiator (or added); {@code null} removes it. */
    private static ServeConfig.Target withAcl(ServeConfig.Target t, String initiator, ServeConfig.Acl acl) {
        List<ServeConfig.Acl> list = new ArrayList<>();
        boolean done = false;
        for (ServeConfig.Acl a : acls(t)) {
            if (a.initiator().equals(initiator)) {
                if (acl != null) {
                    list.add(acl);
                }
                done = true;
            } else {
                list.add(a);
            }
        }
        if (!done && acl != null) {
            list.add(acl);
        }
        return ManagementApi.withLunsAndAcls(t, t.luns(), list);
    }

    private static Object create(ManagementApi api, Params p) {
        ServeConfig.Target t = ManagementApi.requireTarget(api.current(), p.string("target"));
        String initiator = p.string("initiator");
        List<ServeConfig.MappedLun> luns = p.has("luns") ? parseLuns(p) : null;
        ServeConfig.Acl existing = find(t, initiator);
        if (existing != null) {
            if (luns != null && !Objects.equals(normal(existing.luns()), normal(luns))) {
                throw ApiException.domain(ApiException.Reason.EXISTS, "the ACL of " + initiator + " on " + t.name()
                        + " maps other LUNs").with("existing", describe(existing));
            }
            return created(false, existing);
        }
        if (luns == null) { // LIO auto_add_mapped_luns: a new ACL sees every LUN of the portal group
            luns = (t.luns() == null ? List.<ServeConfig.Lun>of() : t.luns()).stream()
                    .map(l -> new ServeConfig.MappedLun(l.lun(), null, null)).toList();
        }
        ServeConfig.Acl acl = new ServeConfig.Acl(initiator, null, luns);
        api.change(c -> ManagementApi.replaceTarget(c, withAcl(t, initiator, acl)));
        return created(true, acl);
    }

    /** Mapped LUNs compared by what they mean: mapped_lun defaulted, read_only false when absent. */
    private static List<List<Object>> normal(List<ServeConfig.MappedLun> luns) {
        return (luns == null ? List.<ServeConfig.MappedLun>of() : luns).stream()
                .map(m -> List.<Object>of(mapped(m), m.lun(), Boolean.TRUE.equals(m.readOnly())))
                .sorted(java.util.Comparator.comparing(x -> (Integer) x.get(0))).toList();
    }

    private static List<ServeConfig.MappedLun> parseLuns(Params p) {
        List<ServeConfig.MappedLun> out = new ArrayList<>();
        int i = 0;
        for (var n : p.optArray("luns")) {
            String at = "luns[" + i++ + "]";
            if (!n.isObject() || !n.path("lun").canConvertToInt() || !n.path("lun").isIntegralNumber()) {
                throw ApiException.badParam(at, at + " must be an object with an integer \"lun\"");
            }
            n.fieldNames().forEachRemaining(k -> {
                if (!List.of("lun", "mapped_lun", "read_only").contains(k)) {
                    throw ApiException.badParam(at + "." + k, "unknown key '" + k + "' in " + at
                            + " (known: lun, mapped_lun, read_only)");
                }
            });
            Integer as = n.hasNonNull("mapped_lun") ? n.get("mapped_lun").asInt() : null;
            Boolean ro = n.hasNonNull("read_only") ? n.get("read_only").asBoolean() : null;
            out.add(new ServeConfig.MappedLun(n.get("lun").asInt(), as, ro));
        }
        return out;
    }

    private static Map<String, Object> created(boolean created, ServeConfig.Acl acl) {
        Map<String, Object> m = ManagementApi.result("created", created);
        m.put("acl", describe(acl));
        return m;
    }

    private static Object delete(ManagementApi api, String target, String initiator) {
        ServeConfig.Target t = ManagementApi.requireTarget(api.current(), target);
        if (find(t, initiator) == null) {
            return ManagementApi.result("deleted", false);
        }
        api.change(c -> ManagementApi.replaceTarget(c, withAcl(t, initiator, null)));
        return ManagementApi.result("deleted", true);
    }

    private static Object map(ManagementApi api, Params p) {
        ServeConfig.Target t = ManagementApi.requireTarget(api.current(), p.string("target"));
        ServeConfig.Acl a = require(t, p.string("initiator"));
        int lun = p.integer("lun");
        int as = p.has("mapped_lun") ? p.integer("mapped_lun") : lun;
        boolean ro = Boolean.TRUE.equals(p.optBool("read_only"));
        if (t.luns() == null || t.luns().stream().noneMatch(l -> l.lun() == lun)) {
            throw ApiException.domain(ApiException.Reason.NOT_FOUND, "no LUN " + lun + " on " + t.name())
                    .with("lun", lun);
        }
        List<ServeConfig.MappedLun> ml = new ArrayList<>(a.luns() == null ? List.of() : a.luns());
        for (ServeConfig.MappedLun m : ml) {
            if (mapped(m) == as) {
                if (m.lun() == lun && Boolean.TRUE.equals(m.readOnly()) == ro) {
                    return ManagementApi.result("created", false);
                }
                throw ApiException.domain(ApiException.Reason.CONFLICT, "mapped LUN " + as + " of " + a.initiator()
                        + " is LUN " + m.lun() + (Boolean.TRUE.equals(m.readOnly()) ? " read-only" : "")
                        + "; unmap it first").with("mapped_lun", as);
            }
        }
        ml.add(new ServeConfig.MappedLun(lun, as == lun ? null : as, ro ? Boolean.TRUE : null));
        ServeConfig.Acl n = new ServeConfig.Acl(a.initiator(), a.auth(), ml);
        api.change(c -> ManagementApi.replaceTarget(c, withAcl(t, a.initiator(), n)));
        return ManagementApi.result("created", true);
    }

    private static Object unmap(ManagementApi api, String target, String initiator, int as) {
        ServeConfig.Target t = ManagementApi.requireTarget(api.current(), target);
        ServeConfig.Acl a = require(t, initiator);
        List<ServeConfig.MappedLun> ml = a.luns() == null ? List.of() : a.luns();
        if (ml.stream().noneMatch(m -> mapped(m) == as)) {
            return ManagementApi.result("deleted", false);
        }
        ServeConfig.Acl n = new ServeConfig.Acl(a.initiator(), a.auth(),
                ml.stream().filter(m -> mapped(m) != as).toList());
        api.change(c -> ManagementApi.replaceTarget(c, withAcl(t, initiator, n)));
        return ManagementApi.result("deleted", true);
    }

    private static Object chapSet(ManagementApi api, Params p) {
        ServeConfig.Chap chap = new ServeConfig.Chap(p.string("user"), p.string("secret"),
                p.optString("mutual_user"), p.optString("mutual_secret"));
        return p.has("initiator") ? setAclChap(api, p, chap) : setChap(api, p.optString("target"), chap);
    }

    private static Object chapClear(ManagementApi api, Params p) {
        return p.has("initiator") ? setAclChap(api, p, null) : setChap(api, p.optString("target"), null);
    }

    /** LIO's node ACL auth: what that initiator proves at login instead of the target's CHAP (new logins). */
    private static Object setAclChap(ManagementApi api, Params p, ServeConfig.Chap chap) {
        String target = p.string("target");
        String initiator = p.string("initiator");
        ServeConfig.Target t = ManagementApi.requireTarget(api.current(), target);
        ServeConfig.Acl a = require(t, initiator);
        ServeConfig.Acl n = new ServeConfig.Acl(a.initiator(), chap, a.luns());
        List<String> changes = api.change(c -> ManagementApi.replaceTarget(c, withAcl(t, initiator, n)));
        return ManagementApi.result("changed", !changes.isEmpty());
    }

    private static Object setChap(ManagementApi api, String target, ServeConfig.Chap chap) {
        List<String> changes;
        if (target == null) {
            changes = api.change(c -> ManagementApi.withDiscoveryAuth(c, chap));
        } else {
            ServeConfig.Target t = ManagementApi.requireTarget(api.current(), target);
            ServeConfig.Target n = new ServeConfig.Target(t.name(), t.alias(), chap, t.luns(), t.acls());
            changes = api.change(c -> ManagementApi.replaceTarget(c, n));
        }
        return ManagementApi.result("changed", !changes.isEmpty());
    }

    static Map<String, Object> describe(ServeConfig.Acl a) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("initiator", a.initiator());
        m.put("mapped_luns", (a.luns() == null ? List.<ServeConfig.MappedLun>of() : a.luns()).stream().map(x -> {
            Map<String, Object> l = new LinkedHashMap<>();
            l.put("mapped_lun", mapped(x));
            l.put("lun", x.lun());
            l.put("read_only", Boolean.TRUE.equals(x.readOnly()));
            return l;
        }).toList());
        return m;
    }
}
