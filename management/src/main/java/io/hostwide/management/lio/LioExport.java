package io.hostwide.management.lio;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.hostwide.management.config.Portal;
import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.util.Sizes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A hostwide {@link ServeConfig} as rtslib-fb's saveconfig.json: what {@code targetcli saveconfig} would write for
 * the same objects — rtslib's key names and nesting, its value types (sizes and numbers as JSON numbers, flags as
 * booleans, attributes as numbers), and its layout ({@code json.dump(sort_keys=True, indent=2)}). One TPG per
 * target, tag 1, listing serve's portals; the attributes and parameters hostwide has fixed are written with
 * hostwide's values ({@link LioTables}), so LIO restored from the file behaves as hostwide did. What LIO cannot say
 * (O_DIRECT, removable media, physical block size, pacing, connection limits) is one warning line per key.
 */
public final class LioExport {

    /** The default portal serve listens on when neither the file nor {@code --listen} names one. */
    private static final String DEFAULT_PORTAL = "127.0.0.1:" + Portal.DEFAULT_PORT;

    private static final ObjectMapper TREE = JsonMapper.builder().build();

    /** Backstore keys the export carries; any other one set is reported (a key added later is never lost silently). */
    private static final Set<String> BACKSTORE_CARRIED = Set.of("type", "size", "path", "block_size", "thin",
            "queue_depth", "write_cache", "write_protect");

    /**
     * An exported configuration.
     *
     * @param saveconfig rtslib's tree: maps (sorted by key), lists, strings, numbers, booleans
     * @param warnings one line per hostwide key LIO has no place for: "backstores.disk1.direct=true: ..."
     */
    public record Result(Map<String, Object> saveconfig, List<String> warnings) {

        /** The file's text, as rtslib writes it (sorted keys, two-space indent, ASCII, a final newline). */
        public String text() {
            StringBuilder sb = new StringBuilder();
            PythonJson.write(sb, saveconfig, 0);
            return sb.append('\n').toString();
        }
    }

    private final List<String> warnings = new ArrayList<>();

    private LioExport() {
    }

    /**
     * The configuration as saveconfig.json. A file backstore without a size takes its file's current size (rtslib
     * needs one), or is reported when the file does not exist.
     */
    public static Result convert(ServeConfig cfg) {
        LioExport run = new LioExport();
        Map<String, Object> root = new TreeMap<>();
        Map<String, String> refs = new LinkedHashMap<>();
        root.put("storage_objects", run.storageObjects(cfg, refs));
        root.put("targets", run.targets(cfg, refs));
        root.put("fabric_modules", run.fabricModules(cfg));
        run.session(cfg);
        return new Result(root, List.copyOf(run.warnings));
    }

    private List<Object> storageObjects(ServeConfig cfg, Map<String, String> refs) {
        List<Object> list = new ArrayList<>();
        if (cfg.backstores() == null) {
            return list;
        }
        cfg.backstores().forEach((name, b) -> {
            Map<String, Object> so = storageObject(name, b);
            if (so != null) {
                refs.put(name, "/backstores/" + so.get("plugin") + "/" + name);
                list.add(so);
            }
        });
        return list;
    }

    private Map<String, Object> storageObject(String name, ServeConfig.Backstore b) {
        String at = "backstores." + name;
        Map<String, Object> so = new TreeMap<>();
        Map<String, Object> attrs = new TreeMap<>();
        so.put("name", name);
        so.put("alua_tpgs", List.of());
        int bs = b.blockSize() == null ? 512 : b.blockSize();
        attrs.put("block_size", bs);
        boolean writeCache = !Boolean.FALSE.equals(b.writeCache()); // hostwide's default: enabled
        switch (b.type()) {
            case "ram", "null" -> {
                so.put("plugin", "ramdisk");
                so.put("size", bytes(at + ".size", b.size()));
                if (b.type().equals("null")) {
                    so.put("nullio", true);
                }
            }
            case "file" -> {
                so.put("plugin", "fileio");
                so.put("dev", b.path());
                so.put("write_back", writeCache);
                so.put("aio", false);
                Long size = b.size() != null ? (Long) bytes(at + ".size", b.size()) : fileSize(at, b.path());
                if (size != null) {
                    so.put("size", size);
                }
            }
            case "block" -> {
                so.put("plugin", "block");
                so.put("dev", b.path());
                so.put("write_back", writeCache);
                so.put("readonly", Boolean.TRUE.equals(b.writeProtect()));
                so.put("exclusive", true);
            }
            default -> {
                warnings.add(at + ".type=" + b.type() + ": no LIO storage object plugin for it; not exported");
                return null;
            }
        }
        attrs.put("emulate_write_cache", writeCache ? 1 : 0);
        boolean thin = !Boolean.FALSE.equals(b.thin()); // hostwide's default: thin
        attrs.put("emulate_tpu", thin ? 1 : 0);
        attrs.put("emulate_tpws", thin ? 1 : 0);
        if (b.queueDepth() != null) {
            attrs.put("queue_depth", b.queueDepth());
        }
        LioTables.DEVICE.forEach((k, f) -> attrs.put(k, Integer.parseInt(f.value())));
        so.put("attributes", attrs);
        if (Boolean.TRUE.equals(b.writeProtect()) && !b.type().equals("block")) {
            warnings.add(at + ".write_protect=true: LIO's " + so.get("plugin") + " has no read-only setting; write "
                    + "protect the LUN in each node ACL instead (mapped_luns write_protect)");
        }
        reportUncarried(at, b);
        return so;
    }

    /** Every backstore key set that the export has no place for, by name, as the record has them. */
    private void reportUncarried(String at, ServeConfig.Backstore b) {
        JsonNode tree = TREE.valueToTree(b);
        tree.properties().forEach(e -> {
            if (!e.getValue().isNull() && !BACKSTORE_CARRIED.contains(e.getKey())) {
                warnings.add(at + "." + e.getKey() + "=" + e.getValue().asText() + ": no LIO equivalent, not exported");
            }
        });
    }

    private Object bytes(String at, String size) {
        if (size == null) {
            warnings.add(at + ": not set; rtslib needs a size, exported as 0");
            return 0L;
        }
        return Sizes.parseBytes(at, size);
    }

    private Long fileSize(String at, String path) {
        try {
            return Files.size(Path.of(path));
        } catch (IOException | RuntimeException e) {
            warnings.add(at + ".size: not set and " + path + " cannot be read for it; rtslib needs the size of a "
                    + "file: add \"size\" to the storage object");
            return null;
        }
    }

    private List<Object> targets(ServeConfig cfg, Map<String, String> refs) {
        List<Object> list = new ArrayList<>();
        List<Object> portals = portals(cfg);
        int depth = cfg.session() != null && cfg.session().queueDepth() != null ? cfg.session().queueDepth() : 128;
        List<ServeConfig.Target> targets = cfg.targets() == null ? List.of() : cfg.targets();
        for (int i = 0; i < targets.size(); i++) {
            ServeConfig.Target t = targets.get(i);
            Map<String, Object> target = new TreeMap<>();
            target.put("fabric", "iscsi");
            target.put("wwn", t.name());
            target.put("tpgs", List.of(tpg(t, "targets[" + i + "]", refs, portals, depth)));
            list.add(target);
        }
        return list;
    }

    private Map<String, Object> tpg(ServeConfig.Target t, String at, Map<String, String> refs, List<Object> portals,
                                    int depth) {
        Map<String, Object> tpg = new TreeMap<>();
        boolean demo = t.acls() == null;
        tpg.put("tag", 1);
        tpg.put("enable", true);
        Map<String, Object> attrs = new TreeMap<>();
        attrs.put("authentication", t.auth() != null ? 1 : 0);
        attrs.put("generate_node_acls", demo ? 1 : 0);
        attrs.put("cache_dynamic_acls", demo ? 1 : 0);
        attrs.put("demo_mode_write_protect", 0);
        attrs.put("demo_mode_discovery", 1);
        attrs.put("default_cmdsn_depth", depth);
        LioTables.TPG.forEach((k, f) -> attrs.put(k, Integer.parseInt(f.value())));
        tpg.put("attributes", attrs);
        Map<String, Object> params = new TreeMap<>();
        LioTables.PARAMETERS.forEach((k, f) -> params.put(k, f.value()));
        params.put("AuthMethod", t.auth() != null ? "CHAP" : "CHAP,None");
        if (t.alias() != null) {
            params.put("TargetAlias", t.alias());
        }
        tpg.put("parameters", params);
        List<Object> luns = new ArrayList<>();
        for (ServeConfig.Lun l : t.luns() == null ? List.<ServeConfig.Lun>of() : t.luns()) {
            String ref = refs.get(l.backstore());
            if (ref == null) {
                warnings.add(at + ".luns: LUN " + l.lun() + " (" + l.backstore() + ") has no exported storage "
                        + "object; not exported");
                continue;
            }
            Map<String, Object> lun = new TreeMap<>();
            lun.put("index", l.lun());
            lun.put("storage_object", ref);
            lun.put("alua_tg_pt_gp_name", LioImport.DEFAULT_ALUA_GROUP);
            luns.add(lun);
        }
        tpg.put("luns", luns);
        tpg.put("portals", portals);
        List<Object> acls = new ArrayList<>();
        if (!demo) {
            for (ServeConfig.Acl a : t.acls()) {
                Map<String, Object> acl = new TreeMap<>();
                acl.put("node_wwn", a.initiator());
                List<Object> mapped = new ArrayList<>();
                for (ServeConfig.MappedLun m : a.luns() == null ? List.<ServeConfig.MappedLun>of() : a.luns()) {
                    Map<String, Object> ml = new TreeMap<>();
                    ml.put("index", m.mappedLun() == null ? m.lun() : m.mappedLun());
                    ml.put("tpg_lun", m.lun());
                    ml.put("write_protect", Boolean.TRUE.equals(m.readOnly()));
                    mapped.add(ml);
                }
                acl.put("mapped_luns", mapped);
                // LIO checks an ACL's own credentials; hostwide's are the target's (an ACL's own win when set).
                chap(acl, "chap_", a.auth() != null ? a.auth() : t.auth());
                acls.add(acl);
            }
        } else {
            chap(tpg, "chap_", t.auth()); // demo mode: LIO uses the TPG's credentials
        }
        tpg.put("node_acls", acls);
        return tpg;
    }

    private static void chap(Map<String, Object> into, String prefix, ServeConfig.Chap c) {
        if (c == null) {
            return;
        }
        into.put(prefix + "userid", c.user());
        into.put(prefix + "password", c.secret());
        if (c.mutualUser() != null) {
            into.put(prefix + "mutual_userid", c.mutualUser());
            into.put(prefix + "mutual_password", c.mutualSecret());
        }
    }

    /** rtslib's portal entries for serve's portals (every target listens on all of them). */
    private List<Object> portals(ServeConfig cfg) {
        // none set: serve's default; an empty list (every portal deleted) stays empty, as LIO's TPG without portals
        List<String> texts = cfg.portals() == null ? List.of(DEFAULT_PORTAL) : cfg.portals();
        if (cfg.portals() == null) {
            warnings.add("portals: not set; exported as serve's default " + DEFAULT_PORTAL
                    + " (serve's --listen may have chosen others)");
        }
        List<Object> list = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            Portal p = Portal.parse("portals[" + i + "]", texts.get(i));
            Map<String, Object> portal = new TreeMap<>();
            // rtslib keeps IPv6 addresses in brackets ("[::0]"), as its configfs directory names have them.
            portal.put("ip_address", p.host().indexOf(':') >= 0 ? "[" + p.host() + "]" : p.host());
            portal.put("port", p.port());
            portal.put("iser", false);
            portal.put("offload", false);
            list.add(portal);
        }
        return list;
    }

    private List<Object> fabricModules(ServeConfig cfg) {
        if (cfg.discoveryAuth() == null) {
            return List.of(); // rtslib lists a fabric module only when its discovery authentication is on
        }
        Map<String, Object> fm = new TreeMap<>();
        fm.put("name", "iscsi");
        fm.put("discovery_enable_auth", true);
        chap(fm, "discovery_", cfg.discoveryAuth());
        return List.of(fm);
    }

    private void session(ServeConfig cfg) {
        ServeConfig.Session s = cfg.session();
        if (s != null && s.nopInIntervalMs() != null) {
            warnings.add("session.nop_in_interval_ms=" + s.nopInIntervalMs() + ": LIO sets NOP-In per node ACL "
                    + "(nopin_timeout, seconds); not exported");
        }
        if (s != null && s.nopInTimeoutMs() != null) {
            warnings.add("session.nop_in_timeout_ms=" + s.nopInTimeoutMs() + ": LIO sets it per node ACL "
                    + "(nopin_response_timeout, seconds); not exported");
        }
        ServeConfig.Limits l = cfg.limits();
        if (l != null && (l.pendingLogins() != null || l.pendingLoginsPerAddress() != null)) {
            warnings.add("limits: LIO has no cap on connections before login; not exported");
        }
        if (cfg.metrics() != null) {
            warnings.add("metrics: LIO has no metrics listener; not exported");
        }
        if (l != null && l.ramBudget() != null) {
            warnings.add("limits.ram_budget=" + l.ramBudget() + ": LIO's ramdisks have no shared budget; not exported");
        }
    }
}
