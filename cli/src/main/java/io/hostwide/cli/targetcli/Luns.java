package io.hostwide.cli.targetcli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Map;

/** {@code /iscsi/IQN/tpg1/luns}: LUNs of a target. */
final class Luns {
    private Luns() {
    }

    static void create(Shell sh, Node at, List<String> args) {
        Commands.require(sh, at);
        Map<String, String> a = Shell.bind(args, List.of("storage_object", "lun", "add_mapped_luns"));
        Commands.need(a, "storage_object");
        String backstore = Commands.storageObject(sh, a.get("storage_object"));
        ObjectNode p = Api.params().put("target", at.target()).put("backstore", backstore);
        if (a.containsKey("lun")) {
            p.put("lun", Commands.lunNumber("lun", a.get("lun")));
        }
        if (a.containsKey("add_mapped_luns")) {
            p.put("map_to_acls", Shell.bool("add_mapped_luns", a.get("add_mapped_luns")));
        }
        JsonNode r = sh.api.call("lun_create", p);
        int lun = r.path("lun").asInt();
        // Proxmox reads the LUN number from this line (/LUN (\d+)/); a retry gets the same number
        sh.out.println(r.path("created").asBoolean() ? "Created LUN " + lun + "."
                : "LUN " + lun + " already exports " + a.get("storage_object") + "; unchanged.");
        if (r.path("created").asBoolean()) {
            // targetcli-fb ui_target.py UILUNs.ui_command_create, with auto_add_mapped_luns: one line per node ACL
            // the new LUN was mapped into, "Created LUN %d->%d mapping in node ACL %s"
            JsonNode t = sh.api.call("target_get", Api.params().put("name", at.target()));
            for (JsonNode acl : t.path("acls")) {
                for (JsonNode m : acl.path("mapped_luns")) {
                    if (m.path("lun").asInt() == lun) {
                        sh.out.println("Created LUN " + lun + "->" + m.path("mapped_lun").asInt()
                                + " mapping in node ACL " + acl.path("initiator").asText());
                    }
                }
            }
        }
    }

    static void delete(Shell sh, Node at, List<String> args) {
        Commands.require(sh, at);
        Map<String, String> a = Shell.bind(args, List.of("lun"));
        Commands.need(a, "lun");
        int lun = Commands.lunNumber("lun", a.get("lun"));
        JsonNode r = sh.api.call("lun_delete", Api.params().put("target", at.target()).put("lun", lun));
        sh.out.println(r.path("deleted").asBoolean() ? "Deleted LUN " + lun + "."
                : "No LUN " + lun + "; nothing to delete.");
    }
}
