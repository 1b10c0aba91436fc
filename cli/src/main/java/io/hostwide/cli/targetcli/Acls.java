package io.hostwide.cli.targetcli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Map;

/** {@code /iscsi/IQN/tpg1/acls}: node ACLs and their mapped LUNs. */
final class Acls {
    private Acls() {
    }

    static JsonNode find(JsonNode target, String initiator) {
        for (JsonNode a : target.path("acls")) {
            if (a.path("initiator").asText().equalsIgnoreCase(initiator)) {
                return a;
            }
        }
        return null;
    }

    static void create(Shell sh, Node at, List<String> args) {
        Commands.require(sh, at);
        Map<String, String> a = Shell.bind(args, List.of("wwn", "add_mapped_luns"));
        Commands.need(a, "wwn");
        ObjectNode p = Api.params().put("target", at.target()).put("initiator", a.get("wwn"));
        if (a.containsKey("add_mapped_luns") && !Shell.bool("add_mapped_luns", a.get("add_mapped_luns"))) {
            p.putArray("luns");
        }
        JsonNode r = sh.api.call("acl_create", p);
        if (!r.path("created").asBoolean()) {
            sh.out.println("Node ACL " + a.get("wwn") + " already exists; unchanged.");
            return;
        }
        // targetcli-fb ui_target.py UINodeACLs.ui_command_create: "Created Node ACL for %s" (no full stop), then per
        // LUN mapped "Created mapped LUN %d." (lower-case "mapped", unlike UINodeACL's "Created Mapped LUN %d.")
        sh.out.println("Created Node ACL for " + r.path("acl").path("initiator").asText(a.get("wwn")));
        for (JsonNode m : r.path("acl").path("mapped_luns")) {
            sh.out.println("Created mapped LUN " + m.path("mapped_lun").asInt() + ".");
        }
    }

    static void delete(Shell sh, Node at, List<String> args) {
        Commands.require(sh, at);
        Map<String, String> a = Shell.bind(args, List.of("wwn"));
        Commands.need(a, "wwn");
        JsonNode r = sh.api.call("acl_delete", Api.params().put("target", at.target()).put("initiator", a.get("wwn")));
        sh.out.println(r.path("deleted").asBoolean() ? "Deleted Node ACL " + a.get("wwn") + "."
                : "No Node ACL " + a.get("wwn") + "; nothing to delete.");
    }

    /** {@code create mapped_lun tpg_lun_or_backstore [write_protect]} in an ACL. */
    static void map(Shell sh, Node at, List<String> args) {
        Commands.require(sh, at);
        Map<String, String> a = Shell.bind(args, List.of("mapped_lun", "tpg_lun_or_backstore", "write_protect"));
        Commands.need(a, "mapped_lun");
        Commands.need(a, "tpg_lun_or_backstore");
        int mapped = Commands.lunNumber("mapped_lun", a.get("mapped_lun"));
        String what = a.get("tpg_lun_or_backstore");
        int lun;
        if (what.startsWith("/backstores/")) {
            String name = Commands.storageObject(sh, what);
            JsonNode t = Commands.require(sh, at);
            lun = -1;
            for (JsonNode l : t.path("luns")) {
                if (l.path("backstore").asText().equals(name)) {
                    lun = l.path("lun").asInt();
                }
            }
            if (lun < 0) { // targetcli creates the TPG LUN first, mapped to this ACL only (below)
                JsonNode created = sh.api.call("lun_create", Api.params().put("target", at.target())
                        .put("backstore", name).put("map_to_acls", false));
                lun = created.path("lun").asInt();
                sh.out.println("Created LUN " + lun + ".");
            }
        } else {
            lun = Commands.lunNumber("tpg_lun_or_backstore", what);
        }
        ObjectNode p = Api.params().put("target", at.target()).put("initiator", at.initiator()).put("lun", lun)
                .put("mapped_lun", mapped);
        if (a.containsKey("write_protect")) {
            p.put("read_only", Shell.bool("write_protect", a.get("write_protect")));
        }
        JsonNode r = sh.api.call("acl_map_lun", p);
        sh.out.println(r.path("created").asBoolean() ? "Created Mapped LUN " + mapped + "."
                : "Mapped LUN " + mapped + " already exists; unchanged.");
    }

    static void unmap(Shell sh, Node at, List<String> args) {
        Commands.require(sh, at);
        Map<String, String> a = Shell.bind(args, List.of("mapped_lun"));
        Commands.need(a, "mapped_lun");
        int mapped = Commands.lunNumber("mapped_lun", a.get("mapped_lun"));
        JsonNode r = sh.api.call("acl_unmap_lun", Api.params().put("target", at.target())
                .put("initiator", at.initiator()).put("mapped_lun", mapped));
        sh.out.println(r.path("deleted").asBoolean() ? "Deleted Mapped LUN " + mapped + "."
                : "No Mapped LUN " + mapped + "; nothing to delete.");
    }
}
