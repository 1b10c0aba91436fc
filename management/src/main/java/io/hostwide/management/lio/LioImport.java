package io.hostwide.management.lio;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hostwide.management.config.ConfigPlaces;
import io.hostwide.management.config.Portal;
import io.hostwide.management.config.ServeConfig;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * rtslib-fb's saveconfig.json to a hostwide {@link ServeConfig}: what {@code targetcli restoreconfig} would set up,
 * as far as hostwide has it. Keys are read as rtslib's {@code restore()} and the objects' {@code setup()} read them.
 * A key that has no hostwide equivalent is one warning naming its place and value (see {@link LioTables} for the
 * values that need none because hostwide behaves so anyway); one whose loss would change who may reach which data
 * (several TPGs, an ACL that refers to nothing, CHAP hostwide would not enforce) is an error naming its place.
 */
public final class LioImport {

    /**
     * A converted file.
     *
     * @param config the configuration, not yet checked by hostwide's rules (see {@link ConfigFiles})
     * @param hostwide the same as hostwide's JSON format, in the order the file had
     * @param warnings one line per key without a hostwide equivalent: "file line N: path=value: why"
     * @param sourceKey hostwide's key ({@code backstores.disk1.size}) to the key of the file it came from
     */
    public record Result(ServeConfig config, ObjectNode hostwide, List<String> warnings,
                         UnaryOperator<String> sourceKey) {
    }

    static final String DEFAULT_ALUA_GROUP = "default_tg_pt_gp";

    private final ConfigPlaces places;
    private final List<String> warnings = new ArrayList<>();
    /** hostwide key → LIO key, for the keys (and prefixes of keys) whose names differ. */
    private final Map<String, String> keys = new HashMap<>();
    private final ObjectNode out = JsonNodeFactory.instance.objectNode();
    /** "/backstores/fileio/disk1" → the backstore's name. */
    private final Map<String, String> objects = new HashMap<>();
    private final Map<String, Integer> portalsSeen = new LinkedHashMap<>();
    /** Whether a TPG lists its portals (rtslib writes the key, empty or not, for every TPG). */
    private boolean portalListsSeen;
    private final Set<String> cmdsnDepths = new LinkedHashSet<>();
    private String cmdsnDepthAt;

    private LioImport(ConfigPlaces places) {
        this.places = places;
    }

    /** Converts a parsed saveconfig.json; {@code places} names its places (lines) in messages. */
    public static Result convert(ConfigPlaces places, JsonNode root) {
        LioImport run = new LioImport(places);
        run.root(root);
        ServeConfig cfg;
        try {
            cfg = ConfigFiles.bind(run.out);
        } catch (IllegalArgumentException e) { // the tree is ours: a failure here is a bug, said plainly
            throw new IllegalStateException("saveconfig.json import built an invalid configuration: "
                    + e.getMessage(), e);
        }
        Map<String, String> keys = Map.copyOf(run.keys);
        return new Result(cfg, run.out, List.copyOf(run.warnings), k -> translate(keys, k));
    }

    /** The longest prefix of {@code key} that was renamed, renamed; the rest kept. */
    static String translate(Map<String, String> keys, String key) {
        for (String k = key; !k.isEmpty(); k = parent(k)) {
            String to = keys.get(k);
            if (to != null) {
                return to + key.substring(k.length());
            }
        }
        return key;
    }

    private static String parent(String key) {
        int cut = Math.max(key.lastIndexOf('.'), key.lastIndexOf('['));
        return cut <= 0 ? "" : key.substring(0, cut);
    }

    private void root(JsonNode root) {
        Set<String> done = Set.of("storage_objects", "targets", "fabric_modules");
        storageObjects(array(root, "storage_objects", "storage_objects"));
        fabricModules(array(root, "fabric_modules", "fabric_modules"));
        targets(array(root, "targets", "targets"));
        // TPGs that list no portal at all (every one deleted) listen nowhere, as LIO does; a file without TPGs says
        // nothing about portals and gets serve's default
        if (!portalsSeen.isEmpty() || portalListsSeen) {
            ArrayNode portals = out.putArray("portals");
            int i = 0;
            for (Map.Entry<String, Integer> p : portalsSeen.entrySet()) {
                portals.add(p.getKey());
                keys.put("portals[" + i++ + "]", "targets[" + p.getValue() + "].tpgs[0].portals");
            }
        }
        if (cmdsnDepths.size() == 1) {
            out.putObject("session").put("queue_depth", Integer.parseInt(cmdsnDepths.iterator().next()));
            keys.put("session.queue_depth", cmdsnDepthAt);
        } else if (cmdsnDepths.size() > 1) {
            warnings.add(places.at(cmdsnDepthAt) + ": the TPGs have different default_cmdsn_depth values "
                    + cmdsnDepths + "; hostwide has one queue depth for every session: the default (128) applies");
        }
        others(root, "", done);
    }

    // ---- storage objects -------------------------------------------------------------------------------------

    private void storageObjects(JsonNode sos) {
        ObjectNode backstores = out.putObject("backstores");
        Map<String, String> names = new HashMap<>();
        for (int i = 0; i < sos.size(); i++) {
            String at = "storage_objects[" + i + "]";
            JsonNode so = object(sos.get(i), at);
            String name = text(so, at + ".name", true);
            String plugin = plugin(text(so, at + ".plugin", true), at + ".plugin");
            String before = names.putIfAbsent(name, plugin + "/" + name);
            if (before != null) {
                throw places.error(at + ".name", " '" + name + "' is also the name of " + before
                        + "; hostwide backstore names are unique across kinds: rename one");
            }
            ObjectNode b = backstores.putObject(name);
            String key = "backstores." + name;
            keys.put(key, at);
            keys.put(key + ".type", at + ".plugin");
            objects.put("/backstores/" + plugin + "/" + name, name);
            Set<String> done = new HashSet<>(Set.of("name", "plugin", "attributes", "alua_tpgs", "wwn"));
            switch (plugin) {
                case "fileio" -> fileio(so, at, b, key, done);
                case "block" -> block(so, at, b, key, done);
                case "ramdisk" -> ramdisk(so, at, b, key, done);
                default -> throw new IllegalStateException(plugin);
            }
            attributes(so.get("attributes"), at + ".attributes", b, key, so);
            aluaGroups(so.get("alua_tpgs"), at + ".alua_tpgs");
            if (so.hasNonNull("wwn")) {
                warn(at + ".wwn", so.get("wwn"), "hostwide has no configurable unit serial (VPD pages 0x80, 0x83): "
                        + "initiators that identify disks by it (multipath WWIDs) see a new disk");
            }
            others(so, at, done);
        }
    }

    /** rtslib's plugin names, and the configfs directory names it also accepts. */
    private String plugin(String plugin, String at) {
        return switch (plugin) {
            case "fileio" -> "fileio";
            case "block", "iblock" -> "block";
            case "ramdisk", "rd_mcp" -> "ramdisk";
            case "pscsi" -> throw places.error(at, " 'pscsi' (SCSI pass-through) has no hostwide equivalent; "
                    + "export the device with plugin block instead");
            case "user" -> throw places.error(at, " 'user' (TCMU, a backstore in a user-space handler) has no "
                    + "hostwide equivalent");
            default -> throw places.error(at, " '" + plugin + "' is not a storage object plugin "
                    + "(fileio, block, ramdisk)");
        };
    }

    private void fileio(JsonNode so, String at, ObjectNode b, String key, Set<String> done) {
        b.put("type", "file");
        b.put("path", text(so, at + ".dev", true));
        keys.put(key + ".path", at + ".dev");
        done.addAll(List.of("dev", "size", "write_back", "aio"));
        if (so.has("size")) {
            b.put("size", size(number(so, at + ".size")));
        }
        if (so.has("write_back")) {
            b.put("write_cache", bool(so, at + ".write_back"));
            keys.put(key + ".write_cache", at + ".write_back");
        }
        if (so.has("aio") && bool(so, at + ".aio")) {
            warn(at + ".aio", so.get("aio"), "no equivalent (hostwide's file I/O always runs off the network "
                    + "threads), ignored");
        }
    }

    /**
     * A block device: hostwide's {@code block} backstore, whose size comes from the device. Whether this build has
     * one is for the loader's check to say ({@link ConfigFiles} words that refusal).
     */
    private void block(JsonNode so, String at, ObjectNode b, String key, Set<String> done) {
        b.put("type", "block");
        b.put("path", text(so, at + ".dev", true));
        keys.put(key + ".path", at + ".dev");
        done.addAll(List.of("dev", "write_back", "readonly", "exclusive"));
        if (so.has("write_back")) {
            b.put("write_cache", bool(so, at + ".write_back"));
            keys.put(key + ".write_cache", at + ".write_back");
        }
        if (so.has("readonly") && bool(so, at + ".readonly")) {
            b.put("write_protect", true);
            keys.put(key + ".write_protect", at + ".readonly");
        }
        if (so.has("exclusive") && !bool(so, at + ".exclusive")) {
            warn(at + ".exclusive", so.get("exclusive"), "no equivalent (hostwide opens the device as any "
                    + "process does, without claiming it), ignored");
        }
    }

    private void ramdisk(JsonNode so, String at, ObjectNode b, String key, Set<String> done) {
        done.addAll(List.of("size", "nullio"));
        boolean nullio = so.has("nullio") && bool(so, at + ".nullio");
        b.put("type", nullio ? "null" : "ram");
        if (nullio) {
            keys.put(key + ".type", at + ".nullio");
        }
        b.put("size", size(number(so, at + ".size")));
    }

    private static String size(long bytes) {
        for (String unit : new String[] {"t", "g", "m", "k"}) {
            int shift = switch (unit) {
                case "t" -> 40;
                case "g" -> 30;
                case "m" -> 20;
                default -> 10;
            };
            if (bytes > 0 && bytes % (1L << shift) == 0) {
                return (bytes >> shift) + unit;
            }
        }
        return Long.toString(bytes);
    }

    /** A storage object's {@code attributes}: block size, write cache, queue depth, thin provisioning; the rest reported. */
    private void attributes(JsonNode attrs, String at, ObjectNode b, String key, JsonNode so) {
        if (attrs == null || attrs.isNull()) {
            return;
        }
        object(attrs, at);
        Integer tpu = null;
        Integer tpws = null;
        for (Map.Entry<String, JsonNode> e : attrs.properties()) {
            String k = e.getKey();
            String kat = at + "." + k;
            switch (k) {
                case "block_size" -> {
                    b.put("block_size", attrInt(e.getValue(), kat));
                    keys.put(key + ".block_size", kat);
                }
                case "emulate_write_cache" -> {
                    boolean wc = attrInt(e.getValue(), kat) != 0;
                    if (so.has("write_back") && b.has("write_cache") && b.get("write_cache").asBoolean() != wc) {
                        warn(kat, e.getValue(), "disagrees with write_back; the write cache is "
                                + (wc ? "enabled" : "disabled") + " as this attribute says");
                    }
                    b.put("write_cache", wc);
                    keys.put(key + ".write_cache", kat);
                }
                case "queue_depth" -> {
                    b.put("queue_depth", attrInt(e.getValue(), kat));
                    keys.put(key + ".queue_depth", kat);
                }
                case "emulate_tpu" -> tpu = attrInt(e.getValue(), kat);
                case "emulate_tpws" -> tpws = attrInt(e.getValue(), kat);
                default -> fixedOrReported(LioTables.DEVICE, kat, e.getValue());
            }
        }
        if (tpu != null || tpws != null) {
            boolean thin = (tpu != null && tpu != 0) || (tpws != null && tpws != 0);
            if (tpu != null && tpws != null && (tpu != 0) != (tpws != 0)) {
                warn(at + (tpu != 0 ? ".emulate_tpws" : ".emulate_tpu"), attrs.get(tpu != 0 ? "emulate_tpws"
                        : "emulate_tpu"), "hostwide has UNMAP and WRITE SAME with UNMAP together or neither: thin "
                        + "provisioning is on, both are accepted");
            }
            b.put("thin", thin);
            keys.put(key + ".thin", at + (tpu != null ? ".emulate_tpu" : ".emulate_tpws"));
        }
    }

    /** ALUA groups beyond LIO's default: hostwide reports one group, active/optimized. */
    private void aluaGroups(JsonNode groups, String at) {
        if (groups == null || groups.isNull()) {
            return;
        }
        array(groups, at);
        for (int g = 0; g < groups.size(); g++) {
            String gat = at + "[" + g + "]";
            JsonNode group = object(groups.get(g), gat);
            if (!DEFAULT_ALUA_GROUP.equals(group.path("name").asText())) {
                warnings.add(places.at(gat) + ": ALUA target port group '" + group.path("name").asText()
                        + "' (id " + group.path("tg_pt_gp_id").asText() + ", access state "
                        + group.path("alua_access_state").asText() + "): no equivalent (hostwide reports one "
                        + "target port group, active/optimized), ignored");
            }
        }
    }

    // ---- fabric modules: discovery authentication ----------------------------------------------------------

    private void fabricModules(JsonNode fms) {
        for (int i = 0; i < fms.size(); i++) {
            String at = "fabric_modules[" + i + "]";
            JsonNode fm = object(fms.get(i), at);
            String name = text(fm, at + ".name", true);
            if (!name.equals("iscsi")) {
                throw places.error(at + ".name", " '" + name + "': hostwide serves the iscsi fabric only");
            }
            Set<String> done = new HashSet<>(Set.of("name", "discovery_enable_auth", "discovery_userid",
                    "discovery_password", "discovery_mutual_userid", "discovery_mutual_password"));
            boolean enabled = fm.has("discovery_enable_auth") && bool(fm, at + ".discovery_enable_auth");
            if (enabled) {
                ObjectNode chap = chap(fm, at, "discovery_", "discovery_auth");
                if (chap == null) {
                    throw places.error(at + ".discovery_enable_auth", " is true but discovery_userid and "
                            + "discovery_password are not set: LIO would refuse every discovery session");
                }
                out.set("discovery_auth", chap);
                keys.put("discovery_auth", at);
            } else if (fm.hasNonNull("discovery_userid")) {
                warn(at + ".discovery_userid", fm.get("discovery_userid"), "discovery_enable_auth is false, so "
                        + "these credentials are not used; ignored");
            }
            others(fm, at, done);
        }
    }

    /**
     * CHAP keys with {@code prefix} ("chap_", "discovery_") as hostwide's {@code auth}, or null when none are set;
     * {@code key} is the hostwide key the result lands at, for messages.
     */
    private ObjectNode chap(JsonNode node, String at, String prefix, String key) {
        String user = text(node, at + "." + prefix + "userid", false);
        String secret = text(node, at + "." + prefix + "password", false);
        String mutualUser = text(node, at + "." + prefix + "mutual_userid", false);
        String mutualSecret = text(node, at + "." + prefix + "mutual_password", false);
        if (blank(user) && blank(secret) && blank(mutualUser) && blank(mutualSecret)) {
            return null;
        }
        ObjectNode chap = JsonNodeFactory.instance.objectNode();
        chap.put("user", user);
        chap.put("secret", secret);
        keys.put(key, at);
        keys.put(key + ".user", at + "." + prefix + "userid");
        keys.put(key + ".secret", at + "." + prefix + "password");
        if (!blank(mutualUser) || !blank(mutualSecret)) {
            chap.put("mutual_user", mutualUser);
            chap.put("mutual_secret", mutualSecret);
            keys.put(key + ".mutual_user", at + "." + prefix + "mutual_userid");
            keys.put(key + ".mutual_secret", at + "." + prefix + "mutual_password");
        }
        return chap;
    }

    private static boolean blank(String s) {
        return s == null || s.isEmpty();
    }

    // ---- targets ------------------------------------------------------------------------------------------

    private void targets(JsonNode targets) {
        ArrayNode list = out.putArray("targets");
        for (int i = 0; i < targets.size(); i++) {
            String at = "targets[" + i + "]";
            JsonNode t = object(targets.get(i), at);
            String fabric = text(t, at + ".fabric", true);
            if (!fabric.equals("iscsi")) {
                throw places.error(at + ".fabric", " '" + fabric + "': hostwide serves the iscsi fabric only "
                        + "(remove the " + fabric + " targets, or convert them to iscsi)");
            }
            String wwn = text(t, at + ".wwn", true);
            JsonNode tpgs = array(t, "tpgs", at + ".tpgs");
            if (tpgs.size() > 1) {
                throw places.error(at + ".tpgs[1]", ": target " + wwn + " has " + tpgs.size() + " TPGs; hostwide "
                        + "exports one portal group per target (merge them, or make one target per TPG)");
            }
            others(t, at, Set.of("wwn", "fabric", "tpgs"));
            if (tpgs.isEmpty()) {
                warnings.add(places.at(at + ".tpgs") + ": target " + wwn + " has no TPG, so LIO does not serve "
                        + "it; not imported");
                continue;
            }
            String tat = at + ".tpgs[0]";
            JsonNode tpg = object(tpgs.get(0), tat);
            if (tpg.has("enable") && !bool(tpg, tat + ".enable")) {
                warnings.add(places.at(tat + ".enable") + "=false: target " + wwn + " is disabled, so LIO does "
                        + "not serve it; not imported");
                continue;
            }
            String key = "targets[" + list.size() + "]";
            ObjectNode target = list.addObject();
            keys.put(key, at);
            keys.put(key + ".name", at + ".wwn");
            target.put("name", wwn);
            tpg(tpg, tat, target, key);
        }
    }

    private void tpg(JsonNode tpg, String at, ObjectNode target, String key) {
        if (tpg.has("tag") && number(tpg, at + ".tag") != 1) {
            warn(at + ".tag", tpg.get("tag"), "hostwide's portal group tag is always 1: initiators that recorded "
                    + "the tag (SendTargets' TargetAddress) see 1");
        }
        JsonNode attrs = tpg.path("attributes");
        boolean demo = attrs.has("generate_node_acls") && attrInt(attrs.get("generate_node_acls"),
                at + ".attributes.generate_node_acls") != 0;
        tpgAttributes(attrs, at + ".attributes", demo);
        Map<String, String> params = tpgParameters(tpg.path("parameters"), at + ".parameters", target, key);
        luns(array(tpg, "luns", at + ".luns"), at + ".luns", target, key);
        portalListsSeen |= tpg.has("portals");
        portals(array(tpg, "portals", at + ".portals"), at + ".portals");
        JsonNode acls = array(tpg, "node_acls", at + ".node_acls");
        if (demo && !acls.isEmpty()) {
            throw places.error(at + ".node_acls", ": generate_node_acls=1 (any initiator, all LUNs) together with "
                    + "node ACLs (these initiators, their LUNs) cannot be expressed in hostwide, where a target "
                    + "either lists its initiators or admits any; set generate_node_acls=0 or remove the ACLs");
        }
        if (demo) {
            if (attrs.has("demo_mode_write_protect")
                    && attrInt(attrs.get("demo_mode_write_protect"), at + ".attributes.demo_mode_write_protect") != 0) {
                throw places.error(at + ".attributes.demo_mode_write_protect", "=1: LIO gives every initiator of "
                        + "this demo-mode target read-only LUNs, and hostwide's demo mode is read-write; set it to "
                        + "0, or list the initiators as node ACLs with write_protect");
            }
        } else {
            nodeAcls(acls, at + ".node_acls", target, key);
        }
        auth(tpg, at, target, key, demo, attrs, params);
        others(tpg, at, Set.of("tag", "enable", "attributes", "parameters", "luns", "portals", "node_acls",
                "chap_userid", "chap_password", "chap_mutual_userid", "chap_mutual_password"));
    }

    private void tpgAttributes(JsonNode attrs, String at, boolean demo) {
        if (attrs.isMissingNode() || attrs.isNull()) {
            return;
        }
        object(attrs, at);
        for (Map.Entry<String, JsonNode> e : attrs.properties()) {
            String kat = at + "." + e.getKey();
            switch (e.getKey()) {
                case "generate_node_acls", "authentication", "demo_mode_write_protect" -> {
                    attrInt(e.getValue(), kat); // read where they decide something
                }
                // Which ACLs a demo-mode TPG keeps after logout, and whether demo mode shows in discovery: hostwide
                // keeps none and lists every target it serves to anyone allowed to discover.
                case "cache_dynamic_acls", "demo_mode_discovery" -> {
                    if (demo && attrInt(e.getValue(), kat) == 0) {
                        warn(kat, e.getValue(), "no equivalent (hostwide behaves as 1), ignored");
                    }
                }
                case "default_cmdsn_depth" -> {
                    cmdsnDepths.add(Integer.toString(attrInt(e.getValue(), kat)));
                    if (cmdsnDepthAt == null) {
                        cmdsnDepthAt = kat;
                    }
                }
                default -> fixedOrReported(LioTables.TPG, kat, e.getValue());
            }
        }
    }

    /** {@code TargetAlias} becomes the alias; {@code AuthMethod} is returned for the CHAP decision; the rest reported. */
    private Map<String, String> tpgParameters(JsonNode params, String at, ObjectNode target, String key) {
        Map<String, String> decided = new HashMap<>();
        if (params.isMissingNode() || params.isNull()) {
            return decided;
        }
        object(params, at);
        for (Map.Entry<String, JsonNode> e : params.properties()) {
            String kat = at + "." + e.getKey();
            switch (e.getKey()) {
                case "TargetAlias" -> {
                    if (!e.getValue().asText().isEmpty()) {
                        target.put("alias", e.getValue().asText());
                        keys.put(key + ".alias", kat);
                    }
                }
                case "AuthMethod" -> decided.put("AuthMethod", e.getValue().asText());
                default -> fixedOrReported(LioTables.PARAMETERS, kat, e.getValue());
            }
        }
        return decided;
    }

    private void luns(JsonNode luns, String at, ObjectNode target, String key) {
        ArrayNode list = target.putArray("luns");
        for (int l = 0; l < luns.size(); l++) {
            String lat = at + "[" + l + "]";
            JsonNode lun = object(luns.get(l), lat);
            int index = small(lun, lat + ".index");
            String ref = text(lun, lat + ".storage_object", true);
            String name = storageObject(ref, lat + ".storage_object");
            ObjectNode entry = list.addObject();
            entry.put("lun", index);
            entry.put("backstore", name);
            String k = key + ".luns[" + l + "]";
            keys.put(k, lat);
            keys.put(k + ".lun", lat + ".index");
            keys.put(k + ".backstore", lat + ".storage_object");
            String group = text(lun, lat + ".alua_tg_pt_gp_name", false);
            if (group != null && !group.equals(DEFAULT_ALUA_GROUP)) {
                warn(lat + ".alua_tg_pt_gp_name", lun.get("alua_tg_pt_gp_name"), "no equivalent (hostwide reports "
                        + "one target port group, active/optimized), ignored");
            }
            // alias: the name rtslib gives the configfs link; restore makes a new one when absent.
            others(lun, lat, Set.of("index", "storage_object", "alias", "alua_tg_pt_gp_name"));
        }
    }

    /** "/backstores/fileio/disk1" → the backstore's name; a reference to nothing is an error. */
    private String storageObject(String ref, String at) {
        String[] parts = ref.split("/", -1);
        if (parts.length != 4 || !parts[0].isEmpty() || !parts[1].equals("backstores") || parts[3].isEmpty()) {
            throw places.error(at, " '" + ref + "' is not /backstores/<plugin>/<name>");
        }
        String plugin;
        try {
            plugin = plugin(parts[2], at);
        } catch (IllegalArgumentException e) {
            throw places.error(at, " '" + ref + "' names no storage object of this file");
        }
        String name = objects.get("/backstores/" + plugin + "/" + parts[3]);
        if (name == null) {
            throw places.error(at, " '" + ref + "' names no storage object of this file (defined: "
                    + String.join(", ", objects.keySet().stream().sorted().toList()) + ")");
        }
        return name;
    }

    private void portals(JsonNode portals, String at) {
        for (int p = 0; p < portals.size(); p++) {
            String pat = at + "[" + p + "]";
            JsonNode portal = object(portals.get(p), pat);
            String ip = text(portal, pat + ".ip_address", true);
            long port = number(portal, pat + ".port");
            String host = ip.startsWith("[") && ip.endsWith("]") ? ip.substring(1, ip.length() - 1) : ip;
            if (host.isEmpty() || port > 65535) {
                throw places.error(pat, " " + ip + ":" + port + " is not an address and port (0..65535)");
            }
            String text = new Portal(host, (int) port).toString();
            portalsSeen.putIfAbsent(text, targetIndex(at));
            if (portal.has("iser") && bool(portal, pat + ".iser")) {
                throw places.error(pat + ".iser", "=true: hostwide serves iSCSI over TCP, not iSER (RDMA)");
            }
            if (portal.has("offload") && bool(portal, pat + ".offload")) {
                warn(pat + ".offload", portal.get("offload"), "no equivalent (hostwide has no offload), ignored");
            }
            others(portal, pat, Set.of("ip_address", "port", "iser", "offload"));
        }
    }

    private static int targetIndex(String at) {
        int open = at.indexOf('[');
        return Integer.parseInt(at.substring(open + 1, at.indexOf(']')));
    }

    private void nodeAcls(JsonNode acls, String at, ObjectNode target, String key) {
        ArrayNode list = target.putArray("acls");
        for (int a = 0; a < acls.size(); a++) {
            String aat = at + "[" + a + "]";
            JsonNode acl = object(acls.get(a), aat);
            ObjectNode entry = list.addObject();
            String k = key + ".acls[" + a + "]";
            keys.put(k, aat);
            keys.put(k + ".initiator", aat + ".node_wwn");
            entry.put("initiator", text(acl, aat + ".node_wwn", true));
            ArrayNode mapped = entry.putArray("luns");
            JsonNode mluns = array(acl, "mapped_luns", aat + ".mapped_luns");
            for (int m = 0; m < mluns.size(); m++) {
                String mat = aat + ".mapped_luns[" + m + "]";
                JsonNode mlun = object(mluns.get(m), mat);
                ObjectNode me = mapped.addObject();
                me.put("lun", small(mlun, mat + ".tpg_lun"));
                me.put("mapped_lun", small(mlun, mat + ".index"));
                if (mlun.has("write_protect") && bool(mlun, mat + ".write_protect")) {
                    me.put("read_only", true);
                }
                String mk = k + ".luns[" + m + "]";
                keys.put(mk, mat);
                keys.put(mk + ".lun", mat + ".tpg_lun");
                keys.put(mk + ".mapped_lun", mat + ".index");
                keys.put(mk + ".read_only", mat + ".write_protect");
                if (mlun.hasNonNull("tag")) {
                    warn(mat + ".tag", mlun.get("tag"), "no equivalent (hostwide has no mapped LUN groups), ignored");
                }
                others(mlun, mat, Set.of("index", "tpg_lun", "write_protect", "alias", "tag"));
            }
            JsonNode attrs = acl.path("attributes");
            if (!attrs.isMissingNode() && !attrs.isNull()) {
                object(attrs, aat + ".attributes");
                for (Map.Entry<String, JsonNode> e : attrs.properties()) {
                    fixedOrReported(LioTables.NODE_ACL, aat + ".attributes." + e.getKey(), e.getValue());
                }
            }
            if (acl.hasNonNull("tag")) {
                warn(aat + ".tag", acl.get("tag"), "no equivalent (hostwide has no node ACL groups), ignored");
            }
            others(acl, aat, Set.of("node_wwn", "mapped_luns", "attributes", "tag", "chap_userid", "chap_password",
                    "chap_mutual_userid", "chap_mutual_password"));
        }
    }

    /**
     * CHAP. hostwide enforces one set of credentials per target, so LIO's are carried when they amount to that: the
     * TPG's (which LIO uses in demo mode), or the node ACLs' when every ACL has the same. Anything else is refused:
     * the target would take logins LIO refuses, or refuse ones it takes.
     */
    private void auth(JsonNode tpg, String at, ObjectNode target, String key, boolean demo, JsonNode attrs,
                      Map<String, String> params) {
        String method = params.get("AuthMethod");
        boolean required = attrs.has("authentication")
                ? attrInt(attrs.get("authentication"), at + ".attributes.authentication") != 0
                : method != null && !method.contains("None");
        ObjectNode chap;
        if (demo) {
            chap = chap(tpg, at, "chap_", key + ".auth");
        } else {
            chap = null;
            String first = null;
            JsonNode acls = tpg.path("node_acls");
            for (int a = 0; a < acls.size(); a++) {
                String aat = at + ".node_acls[" + a + "]";
                ObjectNode c = chap(acls.get(a), aat, "chap_", key + ".acls[" + a + "].auth");
                if (a == 0) {
                    chap = c;
                    first = aat;
                } else if (!Objects.equals(c, chap)) {
                    throw places.error(aat + ".chap_userid", ": this node ACL's CHAP credentials differ from "
                            + first + "'s; this build of hostwide enforces one set of CHAP credentials per target, "
                            + "so per-initiator credentials cannot be imported safely");
                }
            }
            if (chap != null) {
                keys.put(key + ".auth", first);
                for (String f : List.of("user", "secret", "mutual_user", "mutual_secret")) {
                    keys.put(key + ".auth." + f, keys.get(key + ".acls[0].auth." + f));
                }
            }
            if (tpg.hasNonNull("chap_userid")) {
                warn(at + ".chap_userid", tpg.get("chap_userid"), "TPG credentials apply in demo mode only "
                        + "(generate_node_acls=1), and this TPG lists node ACLs; ignored");
            }
        }
        if (required && chap == null) {
            throw places.error(at + (attrs.has("authentication") ? ".attributes.authentication" : ".parameters"
                    + ".AuthMethod"), ": CHAP is required but no credentials are set, so LIO admits no one; "
                    + "hostwide would admit anyone. Set chap_userid and chap_password");
        }
        if (chap != null) {
            target.set("auth", chap);
            if (!required) {
                warnings.add(places.at(at + ".attributes.authentication") + "=0: LIO lets initiators choose "
                        + "AuthMethod=None; hostwide requires CHAP from every initiator of a target with credentials");
            }
        }
    }

    // ---- reading helpers ---------------------------------------------------------------------------------

    /** A key whose value hostwide always has passes silently; any other value, or a key it lacks, is reported. */
    private void fixedOrReported(Map<String, LioTables.Fixed> table, String at, JsonNode value) {
        String key = at.substring(at.lastIndexOf('.') + 1);
        LioTables.Fixed fixed = table.get(key);
        if (fixed == null) {
            warn(at, value, "no equivalent, ignored");
        } else if (!fixed.value().equals(value.asText())) {
            warn(at, value, fixed.why() + "; ignored");
        }
    }

    private void warn(String at, JsonNode value, String why) {
        String shown = at.contains("password") ? "(secret)" : value.isValueNode() ? value.asText() : value.toString();
        warnings.add(places.at(at) + "=" + shown + ": " + why);
    }

    /** Keys of {@code node} that nothing read: reported, never dropped silently. */
    private void others(JsonNode node, String at, Set<String> done) {
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            if (!done.contains(e.getKey())) {
                String kat = at.isEmpty() ? e.getKey() : at + "." + e.getKey();
                warn(kat, e.getValue(), "unknown to this importer, ignored");
            }
        }
    }

    private JsonNode object(JsonNode node, String at) {
        if (node == null || !node.isObject()) {
            throw places.error(at, " must be a JSON object");
        }
        return node;
    }

    /** {@code parent.field} as an array; a missing one is empty, as rtslib's {@code .get(field, [])}. */
    private JsonNode array(JsonNode parent, String field, String at) {
        JsonNode a = parent.get(field);
        if (a == null || a.isNull()) {
            return JsonNodeFactory.instance.arrayNode();
        }
        return array(a, at);
    }

    private JsonNode array(JsonNode a, String at) {
        if (!a.isArray()) {
            throw places.error(at, " must be a JSON array");
        }
        return a;
    }

    private String text(JsonNode node, String at, boolean required) {
        String field = at.substring(at.lastIndexOf('.') + 1);
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            if (required) {
                throw places.error(at, " is required");
            }
            return null;
        }
        if (!v.isTextual()) {
            throw places.error(at, " must be a string");
        }
        return v.asText();
    }

    private long number(JsonNode node, String at) {
        String field = at.substring(at.lastIndexOf('.') + 1);
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            throw places.error(at, " is required");
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
            throw places.error(at, " must be a whole number of at least 0, got " + v);
        }
        return v.asLong();
    }

    /** A LUN number, tag or port: a whole number that fits an int (the checks that follow say the real range). */
    private int small(JsonNode node, String at) {
        long v = number(node, at);
        if (v > Integer.MAX_VALUE) {
            throw places.error(at, " " + v + " is out of range");
        }
        return (int) v;
    }

    private boolean bool(JsonNode node, String at) {
        String field = at.substring(at.lastIndexOf('.') + 1);
        JsonNode v = node.get(field);
        if (v == null || !v.isBoolean()) {
            throw places.error(at, " must be true or false");
        }
        return v.asBoolean();
    }

    /** An attribute: rtslib writes an int when the configfs text is one, else the text. */
    private int attrInt(JsonNode v, String at) {
        if (v.isIntegralNumber() && v.canConvertToInt()) {
            return v.asInt();
        }
        if (v.isTextual()) {
            try {
                return Integer.parseInt(v.asText().trim());
            } catch (NumberFormatException e) {
                // fall through to the message
            }
        }
        throw places.error(at, " must be a whole number, got " + v);
    }
}
