package io.hostwide.cli.targetcli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hostwide.management.lio.LioTables;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** create, delete, set, enable and saveconfig at a node: each node kind's part of targetcli's commands. */
final class Commands {
    private static final String BACKSTORES = "/backstores/";

    private Commands() {
    }

    static void create(Shell sh, Node at, List<String> args) {
        switch (at.kind()) {
            case PLUGIN -> Backstores.create(sh, at.plugin(), args);
            case ISCSI -> createTarget(sh, args);
            case TARGET -> {
                require(sh, at);
                Map<String, String> a = Shell.bind(args, List.of("tag"));
                if (a.containsKey("tag") && !a.get("tag").equals("1")) {
                    throw new Shell.Failure("hostwide targets have one TPG, tag 1; TPG " + a.get("tag")
                            + " cannot be created");
                }
                sh.out.println("TPG 1 already exists.");
            }
            case LUNS -> Luns.create(sh, at, args);
            case ACLS -> Acls.create(sh, at, args);
            case ACL -> Acls.map(sh, at, args);
            case PORTALS -> Portals.create(sh, at, args);
            default -> throw new Shell.Failure("Command not found create (at " + at.path() + ")");
        }
    }

    static void delete(Shell sh, Node at, List<String> args) {
        switch (at.kind()) {
            case PLUGIN -> Backstores.delete(sh, at.plugin(), args);
            case ISCSI -> {
                Map<String, String> a = Shell.bind(args, List.of("wwn"));
                need(a, "wwn");
                JsonNode r = sh.api.call("target_delete", Api.params().put("name", a.get("wwn")));
                sh.out.println(r.path("deleted").asBoolean() ? "Deleted Target " + a.get("wwn") + "."
                        : "No target " + a.get("wwn") + "; nothing to delete.");
            }
            case LUNS -> Luns.delete(sh, at, args);
            case ACLS -> Acls.delete(sh, at, args);
            case ACL -> Acls.unmap(sh, at, args);
            case PORTALS -> Portals.delete(sh, at, args);
            case TARGET -> throw new Shell.Failure("hostwide targets have one TPG, tag 1, which goes with the target: "
                    + "delete the target under /iscsi");
            default -> throw new Shell.Failure("Command not found delete (at " + at.path() + ")");
        }
    }

    static void set(Shell sh, Node at, List<String> args) {
        if (args.isEmpty()) {
            throw new Shell.Failure("usage: set attribute|auth key=value ...");
        }
        Map<String, String> kv = new LinkedHashMap<>();
        for (String w : args.subList(1, args.size())) {
            int eq = w.indexOf('=');
            if (eq <= 0) {
                throw new Shell.Failure("'" + w + "' is not key=value");
            }
            kv.put(w.substring(0, eq), w.substring(eq + 1));
        }
        String group = args.get(0);
        switch (group + " " + at.kind()) {
            case "attribute STORAGE_OBJECT" -> Backstores.setAttributes(sh, at, kv);
            case "attribute TPG" -> tpgAttributes(sh, at, kv);
            case "auth TPG", "auth ACL" -> Auth.set(sh, at, kv);
            case "discovery_auth ISCSI" -> Auth.discovery(sh, kv);
            default -> throw new Shell.Failure("set " + group + " is not in hostwide targetcli's subset at "
                    + at.path() + " (README: targetcli front end)");
        }
    }

    static void enable(Shell sh, Node at) {
        if (at.kind() != Node.Kind.TPG) {
            throw new Shell.Failure("Command not found enable (at " + at.path() + ")");
        }
        require(sh, at);
        // a hostwide target serves from its creation, as targetcli's TPGs with auto_enable_tpgt (its default): so
        // UITPG.ui_command_enable's answer for an enabled TPG (ui_target.py)
        sh.out.println("The TPGT is already enabled.");
    }

    static void saveconfig(Shell sh, List<String> args) {
        Map<String, String> a = Shell.bind(args, List.of("savefile"));
        ObjectNode p = Api.params();
        if (a.containsKey("savefile")) {
            p.put("path", a.get("savefile"));
        }
        // every API call has written the configuration back already; this writes it once more, or where asked
        JsonNode r = sh.api.call("config_save", p);
        sh.out.println("Configuration saved to " + r.path("path").asText());
    }

    private static void createTarget(Shell sh, List<String> args) {
        Map<String, String> a = Shell.bind(args, List.of("wwn"));
        String iqn = a.containsKey("wwn") ? a.get("wwn") : generatedIqn();
        JsonNode r = sh.api.call("target_create", Api.params().put("name", iqn));
        if (r.path("created").asBoolean()) {
            sh.out.println("Created target " + iqn + ".");
            sh.out.println("Created TPG 1.");
        } else {
            sh.out.println("Target " + iqn + " already exists; unchanged.");
        }
    }

    /** As targetcli names a target created without a name: a serial number under the product's naming authority. */
    private static String generatedIqn() {
        byte[] b = new byte[6];
        new java.security.SecureRandom().nextBytes(b);
        return "iqn.2026-12.io.hostwide:sn." + java.util.HexFormat.of().formatHex(b);
    }

    /**
     * TPG attributes: generate_node_acls is hostwide's demo mode; the others are accepted where hostwide behaves so
     * anyway and refused where LIO would behave otherwise.
     */
    private static void tpgAttributes(Shell sh, Node at, Map<String, String> kv) {
        JsonNode t = require(sh, at);
        for (Map.Entry<String, String> e : kv.entrySet()) {
            String k = e.getKey();
            String v = e.getValue();
            switch (k) {
                case "generate_node_acls" -> sh.api.call("target_set_attributes", Api.params()
                        .put("name", at.target()).put("generate_node_acls", Shell.bool(k, v)));
                case "authentication" -> {
                    if (Shell.bool(k, v)) {
                        sh.authRequired.add(at.target()); // credentials must follow before the script ends
                    } else if (!t.path("chap_user").isNull() && !t.path("chap_user").isMissingNode()) {
                        throw new Shell.Failure("authentication=0 refused: target " + at.target() + " has CHAP "
                                + "credentials and hostwide requires them of every initiator; clear them first "
                                + "with: set auth userid= password=");
                    }
                }
                case "demo_mode_write_protect" -> {
                    if (Shell.bool(k, v)) {
                        throw new Shell.Failure("demo_mode_write_protect=1 refused: hostwide cannot make generated "
                                + "ACLs read-only; create ACLs with read-only mapped LUNs instead");
                    }
                }
                case "cache_dynamic_acls" -> Shell.bool(k, v); // how LIO keeps generated ACLs: nothing to see here
                case "demo_mode_discovery" -> {
                    if (!Shell.bool(k, v)) {
                        throw new Shell.Failure("demo_mode_discovery=0 refused: hostwide's SendTargets always "
                                + "answers initiators the target admits");
                    }
                }
                default -> {
                    LioTables.Fixed f = LioTables.tpg(k);
                    if (f == null) {
                        throw new Shell.Failure("Unknown attribute " + k + ": hostwide has no equivalent");
                    }
                    if (!f.value().equals(v)) {
                        throw new Shell.Failure("Cannot set " + k + "=" + v + ": " + f.why());
                    }
                }
            }
            sh.out.println("Parameter " + k + " is now '" + v + "'.");
        }
    }

    /** The node's object as the server has it (target_get for iSCSI nodes); "No such path" when absent. */
    static JsonNode require(Shell sh, Node n) {
        return switch (n.kind()) {
            case ROOT, BACKSTORES, PLUGIN, ISCSI -> null;
            case STORAGE_OBJECT -> Backstores.require(sh, n);
            default -> {
                JsonNode t;
                try {
                    t = sh.api.call("target_get", Api.params().put("name", n.target()));
                } catch (Api.Error e) {
                    if (e.reason.equals("not_found")) {
                        throw new Shell.Failure(n.noSuchPath(2)); // the target is the first segment missing
                    }
                    throw e;
                }
                if (n.kind() != Node.Kind.TARGET && n.tpgTag() != t.path("tpgt").asInt(1)) {
                    throw new Shell.Failure(n.noSuchPath(3) + " (hostwide targets have one TPG, tpg1)");
                }
                if ((n.kind() == Node.Kind.ACL || n.kind() == Node.Kind.MAPPED_LUN)
                        && Acls.find(t, n.initiator()) == null) {
                    throw new Shell.Failure(n.noSuchPath(5));
                }
                boolean present = switch (n.kind()) {
                    case LUN -> find(t.path("luns"), "lun", n.number()) != null;
                    case ACL -> Acls.find(t, n.initiator()) != null;
                    case MAPPED_LUN -> Acls.find(t, n.initiator()) != null
                            && find(Acls.find(t, n.initiator()).path("mapped_luns"), "mapped_lun", n.number()) != null;
                    case PORTAL -> Portals.served(sh, n.segments().get(4));
                    default -> true;
                };
                if (!present) {
                    throw new Shell.Failure("No such path " + n.path());
                }
                yield t;
            }
        };
    }

    static JsonNode find(JsonNode array, String key, int value) {
        for (JsonNode e : array) {
            if (e.path(key).asInt(-1) == value) {
                return e;
            }
        }
        return null;
    }

    /** The backstore name in {@code /backstores/PLUGIN/NAME}, checked to be of that plugin. */
    static String storageObject(Shell sh, String path) {
        Node n = path.startsWith(BACKSTORES) ? Node.ROOT_NODE.resolve(path) : null;
        if (n == null || n.kind() != Node.Kind.STORAGE_OBJECT) {
            throw new Shell.Failure("Invalid storage object " + path + " (/backstores/PLUGIN/NAME)");
        }
        Backstores.require(sh, n);
        return n.name();
    }

    static void need(Map<String, String> a, String key) {
        if (!a.containsKey(key) || a.get(key).isEmpty()) {
            throw new Shell.Failure("Missing required parameter " + key);
        }
    }

    static int lunNumber(String key, String v) {
        String digits = v.startsWith("mapped_lun") ? v.substring(10) : v.startsWith("lun") ? v.substring(3) : v;
        try {
            int n = Integer.parseInt(digits);
            if (n >= 0 && n <= 65535) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new Shell.Failure("Invalid " + key + " '" + v + "' (a LUN number, or lunN)");
    }
}
