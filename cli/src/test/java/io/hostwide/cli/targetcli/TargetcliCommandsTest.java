package io.hostwide.cli.targetcli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The subset's commands one by one against a served file (fileio and ramdisk backstores, no root needed): their
 * output lines, idempotent retries, and refusals with exit status 1 and a message saying why and what instead.
 */
class TargetcliCommandsTest {
    private static final String T = "iqn.2026-12.io.hostwide:tcli";
    private static final String INI = "iqn.1991-05.com.microsoft:win-client";

    @TempDir
    Path dir;
    private Served s;

    @BeforeEach
    void serve() throws Exception {
        Path config = dir.resolve("serve.json");
        Files.writeString(config, "{}\n");
        s = Served.start(config, dir.resolve("a.sock"));
    }

    @AfterEach
    void stop() {
        s.close();
    }

    private JsonNode api(String method, String params) {
        return Api.socket(s.socket.path()).call(method, params == null ? null
                : (com.fasterxml.jackson.databind.node.ObjectNode) io.hostwide.management.api.JsonRpc.parse(params));
    }

    private Served.Run ok(String... words) {
        Served.Run r = s.oneShot(words);
        assertThat(r.status()).as(String.join(" ", words) + ": " + r.err()).isZero();
        return r;
    }

    private Served.Run refused(String... words) {
        Served.Run r = s.oneShot(words);
        assertThat(r.status()).as(String.join(" ", words) + ": " + r.out()).isEqualTo(1);
        assertThat(r.err()).startsWith("hostwide targetcli: ");
        return r;
    }

    @Test
    void backstoresWithTargetclisArgumentNamesAndLines() throws Exception {
        Path img = dir.resolve("disk1.img");
        assertThat(ok("/backstores/fileio", "create", "name=disk1", "file_or_dev=" + img, "size=64M",
                "write_back=false").out()).isEqualTo("Created fileio disk1 with size 67108864\n");
        assertThat(api("backstore_get", "{\"name\":\"disk1\"}").path("write_cache").asBoolean()).isFalse();
        assertThat(ok("/backstores/fileio", "create", "name=disk1", "file_or_dev=" + img, "size=64M",
                "write_back=false").out()).contains("already exists as asked");
        assertThat(refused("/backstores/fileio", "create", "disk1", img.toString(), "128M").err())
                .contains("exists: backstore disk1 exists with another definition");
        // ui_backstore.py UIFileIOBackstore.ui_command_create: an existing file keeps its size, saying so
        Path old = dir.resolve("old.img");
        try (var raf = new java.io.RandomAccessFile(old.toFile(), "rw")) {
            raf.setLength(8L << 20);
        }
        assertThat(ok("/backstores/fileio", "create", "old", old.toString(), "64M").out()).isEqualTo(old
                + " exists, using its size (8388608 bytes) instead\nCreated fileio old with size 8388608\n");
        assertThat(refused("/backstores/fileio", "create", "new", dir.resolve("new.img").toString()).err())
                .isEqualTo("hostwide targetcli: Attempting to create file for new fileio backstore, need a size\n");
        assertThat(refused("/backstores/fileio", "create", "d", dir.toString(), "1M").err())
                .isEqualTo("hostwide targetcli: Path " + dir + " exists but is not a file\n");
        assertThat(ok("/backstores/ramdisk", "create", "r0", "1G").out()).isEqualTo("Created ramdisk r0 with size 1G.\n");
        assertThat(api("backstore_get", "{\"name\":\"r0\"}").path("size_bytes").asLong()).isEqualTo(1L << 30);
        ok("/backstores/ramdisk", "create", "name=n0", "size=10GiB", "nullio=true");
        assertThat(api("backstore_get", "{\"name\":\"n0\"}").path("type").asText()).isEqualTo("null");
        assertThat(refused("/backstores/ramdisk", "create", "r1", "ten").err()).contains("Invalid size 'ten'");
        assertThat(refused("/backstores/ramdisk", "create", "r1", "1G", "colour=blue").err())
                .contains("Unexpected keyword parameter 'colour'");
        assertThat(refused("/backstores/block", "delete", "r0").err())
                .contains("No storage object named r0 in /backstores/block (it is /backstores/ramdisk/r0)");
        assertThat(refused("/backstores/block", "create", "b0", "/dev/null", "exclusive=false").err())
                .contains("exclusive=false is refused: hostwide always opens a block device exclusively");
        assertThat(ok("/backstores/ramdisk", "delete", "r0").out()).isEqualTo("Deleted storage object r0.\n");
        assertThat(ok("/backstores/ramdisk", "delete", "r0").out()).contains("nothing to delete");
    }

    @Test
    void deviceAttributesMapToTheApiOrAreRefusedSayingWhy() {
        ok("/backstores/fileio", "create", "disk1", dir.resolve("d.img").toString(), "8M");
        assertThat(ok("/backstores/fileio/disk1", "set", "attribute", "emulate_tpu=1", "emulate_caw=1").out())
                .isEqualTo("Parameter emulate_tpu is now '1'.\nParameter emulate_caw is now '1'.\n");
        // not exported yet: the backstore is created again with the attribute (the API changes it only at rest)
        ok("/backstores/fileio/disk1", "set", "attribute", "emulate_tpu=0", "block_size=4096");
        JsonNode b = api("backstore_get", "{\"name\":\"disk1\"}");
        assertThat(b.path("thin").asBoolean(true)).isFalse();
        assertThat(b.path("logical_block_size").asInt()).isEqualTo(4096);
        assertThat(refused("/backstores/fileio/disk1", "set", "attribute", "emulate_caw=0").err())
                .contains("Cannot set emulate_caw=0: hostwide always implements COMPARE AND WRITE");
        assertThat(refused("/backstores/fileio/disk1", "set", "attribute", "unmap_granularity=8").err())
                .contains("Unknown attribute unmap_granularity: hostwide has no equivalent");
        // exported: a geometry change is the server's restart_required, passed on
        ok("/iscsi", "create", T);
        ok("/iscsi/" + T + "/tpg1/luns", "create", "/backstores/fileio/disk1");
        assertThat(refused("/backstores/fileio/disk1", "set", "attribute", "block_size=512").err())
                .contains("restart_required");
        assertThat(refused("/backstores/fileio/nope", "set", "attribute", "emulate_tpu=1").err())
                .contains("No such path /backstores/fileio/nope");
    }

    @Test
    void targetsLunsAclsAndMappedLuns() {
        assertThat(ok("/iscsi", "create", T).out()).isEqualTo("Created target " + T + ".\nCreated TPG 1.\n");
        assertThat(ok("/iscsi", "create", T).out()).contains("already exists");
        ok("/backstores/ramdisk", "create", "r0", "4M");
        ok("/backstores/ramdisk", "create", "r1", "4M");
        assertThat(ok("/iscsi/" + T + "/tpg1/luns", "create", "/backstores/ramdisk/r0").out())
                .isEqualTo("Created LUN 0.\n");
        assertThat(ok("/iscsi/" + T + "/tpg1/luns", "create", "/backstores/ramdisk/r1", "lun=5").out())
                .isEqualTo("Created LUN 5.\n");
        assertThat(refused("/iscsi/" + T + "/tpg1/luns", "create", "/backstores/block/r0").err())
                .contains("No such path /backstores/block/r0");
        // targetcli-fb ui_target.py UINodeACLs.ui_command_create: "Created Node ACL for %s" (no stop), and
        // "Created mapped LUN %d." per LUN with auto_add_mapped_luns (lower-case "mapped")
        assertThat(ok("/iscsi/" + T + "/tpg1/acls", "create", INI).out())
                .isEqualTo("Created Node ACL for " + INI + "\nCreated mapped LUN 0.\nCreated mapped LUN 5.\n");
        // UILUNs.ui_command_create with ACLs: "Created LUN %d." and "Created LUN %d->%d mapping in node ACL %s"
        ok("/backstores/ramdisk", "create", "r2", "4M");
        assertThat(ok("/iscsi/" + T + "/tpg1/luns", "create", "/backstores/ramdisk/r2", "lun=7").out())
                .isEqualTo("Created LUN 7.\nCreated LUN 7->7 mapping in node ACL " + INI + "\n");
        assertThat(ok("/iscsi/" + T + "/tpg1/luns", "delete", "lun7").out()).isEqualTo("Deleted LUN 7.\n");
        // UINodeACL.ui_command_create with a storage object not yet a LUN: its TPG LUN is created first
        assertThat(ok("/iscsi/" + T + "/tpg1/acls/" + INI, "create", "3", "/backstores/ramdisk/r2").out())
                .isEqualTo("Created LUN 1.\nCreated Mapped LUN 3.\n");
        assertThat(ok("/iscsi/" + T + "/tpg1/acls/" + INI, "delete", "3").out()).isEqualTo("Deleted Mapped LUN 3.\n");
        assertThat(ok("/iscsi/" + T + "/tpg1/luns", "delete", "1").out()).isEqualTo("Deleted LUN 1.\n");
        assertThat(refused("/iscsi/" + T + "/tpg1/acls/iqn.1994-05.com.example:nobody", "delete", "0").err())
                .isEqualTo("hostwide targetcli: No such path /iscsi/" + T + "/tpg1/acls/iqn.1994-05.com.example:nobody\n");
        assertThat(ok("/iscsi/" + T + "/tpg1/acls/" + INI, "delete", "mapped_lun5").out())
                .isEqualTo("Deleted Mapped LUN 5.\n");
        assertThat(ok("/iscsi/" + T + "/tpg1/acls/" + INI, "create", "mapped_lun=1", "tpg_lun_or_backstore=5",
                "write_protect=1").out()).isEqualTo("Created Mapped LUN 1.\n");
        JsonNode acl = api("acl_list", "{\"target\":\"" + T + "\"}").get(0);
        assertThat(acl.toString()).contains("\"mapped_lun\":1,\"lun\":5,\"read_only\":true");
        assertThat(ok("ls", "/iscsi/" + T + "/tpg1/acls").out()).contains("o- acls [ACLs: 1]")
                .contains("o- " + INI + " [Mapped LUNs: 2]").contains("o- mapped_lun1 [lun5 (ro)]");
        assertThat(ok("/iscsi/" + T + "/tpg1/luns", "delete", "lun5").out()).isEqualTo("Deleted LUN 5.\n");
        assertThat(ok("/iscsi/" + T + "/tpg1/luns", "delete", "5").out()).contains("nothing to delete");
        assertThat(ok("/iscsi/" + T + "/tpg1/acls", "delete", INI).out()).isEqualTo("Deleted Node ACL " + INI + ".\n");
        assertThat(refused("/iscsi/" + T + "/tpg2/luns", "create", "/backstores/ramdisk/r1").err())
                .contains("one TPG, tpg1");
        assertThat(ok("/iscsi", "delete", T).out()).isEqualTo("Deleted Target " + T + ".\n");
        assertThat(ok("/iscsi", "delete", T).out()).contains("nothing to delete");
    }

    @Test
    void tpgAttributesAndAuth() {
        ok("/iscsi", "create", T);
        String tpg = "/iscsi/" + T + "/tpg1";
        // ui_target.py UITPG.ui_command_enable on an enabled TPG (hostwide's always are, as targetcli's auto_enable_tpgt)
        assertThat(ok(tpg, "enable").out()).isEqualTo("The TPGT is already enabled.\n");
        ok(tpg, "set", "attribute", "generate_node_acls=1", "cache_dynamic_acls=1", "demo_mode_write_protect=0");
        assertThat(api("target_get", "{\"name\":\"" + T + "\"}").path("generate_node_acls").asBoolean()).isTrue();
        assertThat(refused(tpg, "set", "attribute", "demo_mode_write_protect=1").err()).contains("read-only");
        assertThat(refused(tpg, "set", "attribute", "authentication=1").err())
                .contains("authentication=1 without CHAP credentials");
        // one half alone cannot be applied in one command; a script gives both halves in two
        assertThat(refused(tpg, "set", "auth", "userid=tgtuser").err()).contains("given without its other half");
        assertThat(api("target_get", "{\"name\":\"" + T + "\"}").path("chap_user").isNull()).isTrue();
        Served.Run r = ok(tpg, "set", "auth", "userid=tgtuser", "password=tgtsecret1234");
        assertThat(r.out()).isEqualTo("Parameter userid is now 'tgtuser'.\nParameter password is now '********'.\n");
        assertThat(api("target_get", "{\"name\":\"" + T + "\"}").path("chap_user").asText()).isEqualTo("tgtuser");
        ok(tpg, "set", "attribute", "authentication=1");
        assertThat(refused(tpg, "set", "attribute", "authentication=0").err()).contains("clear them first");
        ok(tpg, "set", "auth", "userid=", "password=");
        assertThat(api("target_get", "{\"name\":\"" + T + "\"}").path("chap_user").isNull()).isTrue();
    }

    @Test
    void discoveryAuth() {
        assertThat(refused("/iscsi", "set", "discovery_auth", "enable=1").err()).contains("needs userid= and password=");
        ok("/iscsi", "set", "discovery_auth", "enable=1", "userid=disc", "password=discsecret1234");
        assertThat(api("config_get", "{\"include_secrets\":true}").path("discovery_auth").path("user").asText())
                .isEqualTo("disc");
        ok("/iscsi", "set", "discovery_auth", "enable=0");
        assertThat(api("config_get", null).path("discovery_auth").isObject()).isFalse();
    }

    @Test
    void aclAuthFromAScriptInParts() throws Exception {
        Served.Run r = s.script("""
                /iscsi create %1$s
                cd /iscsi/%1$s/tpg1/acls
                create %2$s
                cd %2$s
                set auth userid=winuser
                set auth password=winsecret12345
                set auth mutual_userid=tgt mutual_password=tgtsecret12345
                """.formatted(T, INI));
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode cfg = api("config_get", "{\"include_secrets\":true}");
        assertThat(cfg.path("targets").get(0).path("acls").get(0).path("auth").toString())
                .contains("\"user\":\"winuser\"", "\"secret\":\"winsecret12345\"", "\"mutual_user\":\"tgt\"");
        assertThat(r.out()).doesNotContain("winsecret12345");
    }

    @Test
    void aScriptStopsAtItsFirstRefusedLine() throws Exception {
        Served.Run r = s.script("""
                cd /iscsi
                create %s
                cd /iscsi/iqn.2026-12.io.hostwide:nope/tpg1
                create %s
                """.formatted(T, "iqn.2026-12.io.hostwide:never"));
        assertThat(r.status()).isEqualTo(1);
        // configshell's ConfigNode.get_child: the path up to the first segment missing
        assertThat(r.err()).isEqualTo("hostwide targetcli: line 3: No such path "
                + "/iscsi/iqn.2026-12.io.hostwide:nope\n");
        assertThat(api("target_list", null).toString()).contains(T).doesNotContain("never");
        assertThat(s.script("clearconfig confirm=True\n").err()).contains("line 1: Command not found clearconfig");
        assertThat(s.script("cd /iscsi\nexit\ncreate iqn.2026-12.io.hostwide:never\n").status()).isZero();
        assertThat(api("target_list", null).toString()).doesNotContain("never");
    }

    /** serve --listen fixes the portals: a create of one listened on already succeeds, any other change is refused. */
    @Test
    void portalsFixedByListenAreRefusedSayingWhatToDo() {
        ok("/iscsi", "create", T);
        String portals = "/iscsi/" + T + "/tpg1/portals";
        assertThat(ok(portals, "create", "127.0.0.1", Integer.toString(s.port())).out())
                .isEqualTo("Network portal 127.0.0.1:%d already exists; unchanged.\n".formatted(s.port()));
        assertThat(refused(portals, "create", "192.0.2.7", "3260").err()).isEqualTo("hostwide targetcli: "
                + "portals_fixed: portals are fixed by serve's --listen 127.0.0.1:0: restart serve without --listen to "
                + "manage them (the configuration's \"portals\" are then used)\n");
        assertThat(refused(portals, "delete", "127.0.0.1", Integer.toString(s.port())).err())
                .contains("portals_fixed: portals are fixed by serve's --listen 127.0.0.1:0");
        assertThat(ok(portals, "delete", "0.0.0.0", "3260").out())
                .isEqualTo("No network portal 0.0.0.0:3260; nothing to delete.\n");
        assertThat(refused(portals, "delete", "0.0.0.0").err()).contains("Missing required parameter ip_port");
        assertThat(refused(portals, "create", "127.0.0.1", "http").err())
                .contains("Invalid value 'http' for ip_port (a number)");
        assertThat(ok("ls").out()).isEqualTo("""
                o- /
                  o- backstores
                  | o- block [Storage Objects: 0]
                  | o- fileio [Storage Objects: 0]
                  | o- ramdisk [Storage Objects: 0]
                  o- iscsi [Targets: 1]
                    o- %s [TPGs: 1]
                      o- tpg1 [no-gen-acls, no-auth]
                        o- acls [ACLs: 0]
                        o- luns [LUNs: 0]
                        o- portals [Portals: 1]
                          o- 127.0.0.1:%d [OK]
                """.formatted(T, s.port()));
        assertThat(ok("saveconfig").out()).isEqualTo("Configuration saved to " + dir.resolve("serve.json") + "\n");
    }

    @Test
    void pathsResolveAsTargetclisDo() {
        Node tpg = Node.ROOT_NODE.resolve("/iscsi/" + T + "/tpg1");
        assertThat(tpg.kind()).isEqualTo(Node.Kind.TPG);
        assertThat(tpg.resolve("luns/").kind()).isEqualTo(Node.Kind.LUNS);
        assertThat(tpg.resolve("luns/lun3").number()).isEqualTo(3);
        assertThat(tpg.resolve("../..").path()).isEqualTo("/iscsi");
        assertThat(tpg.resolve("acls/" + INI + "/mapped_lun2").kind()).isEqualTo(Node.Kind.MAPPED_LUN);
        assertThat(Node.ROOT_NODE.resolve("backstores/block/x").kind()).isEqualTo(Node.Kind.STORAGE_OBJECT);
        assertThatThrownBy(() -> Node.ROOT_NODE.resolve("/backstores/pscsi")).hasMessage("No such path /backstores/pscsi");
        assertThatThrownBy(() -> tpg.resolve("luns/zero")).hasMessage("No such path /iscsi/" + T + "/tpg1/luns/zero");
        assertThat(Shell.words("create \"a b\" c=d # comment")).isEqualTo(List.of("create", "a b", "c=d"));
        assertThat(Shell.bind(List.of("n", "size=1G"), List.of("name", "size")))
                .containsEntry("name", "n").containsEntry("size", "1G");
        assertThatThrownBy(() -> Node.ROOT_NODE.resolve("/iscsi/" + T + "/tpg1/nodes/x"))
                .hasMessage("No such path /iscsi/" + T + "/tpg1/nodes");
        // configshell/node.py ConfigNode.assert_params, word for word ("positionnal" included)
        assertThatThrownBy(() -> Shell.bind(List.of("a", "b", "c"), List.of("name", "size")))
                .hasMessage("Got 3 positionnal parameters, expected at most 2.");
        assertThatThrownBy(() -> Shell.bind(List.of("name=a", "name=b"), List.of("name")))
                .hasMessage("Duplicate parameter name.");
        assertThatThrownBy(() -> Shell.bind(List.of("colour=blue"), List.of("name")))
                .hasMessage("Unexpected keyword parameter 'colour'.");
    }
}
