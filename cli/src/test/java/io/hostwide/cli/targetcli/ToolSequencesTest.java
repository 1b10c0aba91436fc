package io.hostwide.cli.targetcli;

import com.fasterxml.jackson.databind.JsonNode;
import io.hostwide.management.util.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command sequences the tools that drive targetcli send, replayed through {@code hostwide targetcli} against a
 * served configuration file, and checked from an initiator with libiscsi's {@code iscsi-ls}: the LUN appears, a
 * serve restarted from the file written back serves it again, and it disappears on the tool's delete.
 */
class ToolSequencesTest {
    private static final String BASENAME = "iqn.2003-01.org.linux-iscsi.ubuntu-19.x8664";

    @TempDir
    Path dir;

    /**
     * democratic-csi's zfs-generic-iscsi driver (shareStrategy targetCli) pipes one script per volume into
     * targetcli: the target, its TPG attributes from the driver's configuration (here its example's demo mode), the
     * block backstore over the zvol with its attributes, the LUN; and on delete the target, then the backstore.
     */
    @Test
    void democraticCsiCreateAndDeleteVolumeScripts() throws Exception {
        String asset = "pvc-0b6a3c1e-5f2d-4d8a-9b1e-7c3f2a1d4e5f";
        String iqn = BASENAME + ":" + asset;
        Path config = dir.resolve("serve.json");
        Files.writeString(config, "{}\n");
        try (Served.Loop zvol = Served.Loop.attach(dir, 16L << 20)) {
            String create = """

                    # create target
                    cd /iscsi
                    create %1$s

                    # setup tpg
                    cd /iscsi/%1$s/tpg1

                    set attribute authentication=0
                    set attribute generate_node_acls=1
                    set attribute cache_dynamic_acls=1
                    set attribute demo_mode_write_protect=0


                    # create extent
                    cd /backstores/block
                    create %2$s %3$s
                    cd /backstores/block/%2$s

                    set attribute emulate_tpu=1

                    # add extent to target/tpg
                    cd /iscsi/%1$s/tpg1/luns
                    create /backstores/block/%2$s
                    """.formatted(iqn, asset, zvol.device());
            try (Served s = Served.start(config, dir.resolve("a.sock"))) {
                Served.Run r = s.script(create);
                assertThat(r.status()).as(r.err()).isZero();
                assertThat(r.out()).contains("Created target " + iqn + ".", "Created TPG 1.",
                        "Created block storage object " + asset + " using " + zvol.device() + ".",
                        "Parameter emulate_tpu is now '1'.", "Created LUN 0.");
                // democratic-csi retries the whole script; the second run changes nothing and succeeds
                Served.Run again = s.script(create);
                assertThat(again.status()).as(again.err()).isZero();
                assertThat(again.out()).contains("LUN 0 already exports");
                assertThat(s.iscsiLs()).contains(iqn).contains("Lun:0");
            }
            try (Served s = Served.start(config, dir.resolve("b.sock"))) { // restarted from the file written back
                assertThat(s.iscsiLs()).contains(iqn).contains("Lun:0");
                Served.Run r = s.script("""

                        # delete target
                        cd /iscsi
                        delete %s

                        # delete extent
                        cd /backstores/block
                        delete %s
                        """.formatted(iqn, asset));
                assertThat(r.status()).as(r.err()).isZero();
                assertThat(r.out()).contains("Deleted Target " + iqn + ".", "Deleted storage object " + asset + ".");
                assertThat(s.iscsiLs()).doesNotContain(iqn);
            }
            try (Served s = Served.start(config, dir.resolve("c.sock"))) {
                assertThat(s.iscsiLs()).doesNotContain(iqn);
            }
        }
    }

    /**
     * The same driver with CHAP, as its example configuration (examples/zfs-generic-iscsi.yaml) has it commented:
     * {@code authentication: 1}, the {@code tpg.auth} keys each on a line of its own after the TPG attributes (the
     * driver appends them to the attribute lines; its setAuthText stays an empty line), and {@code emulate_tpu: 0}
     * as the example sets it. The LUN then answers only an initiator that proves the CHAP secret.
     */
    @Test
    void democraticCsiCreateWithChapAsItsExampleConfiguration() throws Exception {
        String asset = "pvc-5e1d2c3b-4a59-4f60-8e71-92a3b4c5d6e7";
        String iqn = BASENAME + ":" + asset;
        Path config = dir.resolve("serve.json");
        Files.writeString(config, "{}\n");
        try (Served.Loop zvol = Served.Loop.attach(dir, 16L << 20);
             Served s = Served.start(config, dir.resolve("a.sock"))) {
            Served.Run r = s.script("""

                    # create target
                    cd /iscsi
                    create %1$s

                    # setup tpg
                    cd /iscsi/%1$s/tpg1

                    set attribute authentication=1
                    set attribute generate_node_acls=1
                    set attribute cache_dynamic_acls=1
                    set attribute demo_mode_write_protect=0
                    set auth userid=csiuser
                    set auth password=csi-secret-0123
                    set auth mutual_userid=csitarget
                    set auth mutual_password=csi-target-secret-4567


                    # create extent
                    cd /backstores/block
                    create %2$s %3$s
                    cd /backstores/block/%2$s

                    set attribute emulate_tpu=0

                    # add extent to target/tpg
                    cd /iscsi/%1$s/tpg1/luns
                    create /backstores/block/%2$s
                    """.formatted(iqn, asset, zvol.device()));
            assertThat(r.status()).as(r.err()).isZero();
            assertThat(r.out()).contains("Parameter authentication is now '1'.", "Parameter userid is now 'csiuser'.",
                    "Parameter emulate_tpu is now '0'.", "Created LUN 0.");
            JsonNode cfg = Served.api(s, "config_get", "{\"include_secrets\":true}");
            JsonNode auth = cfg.path("targets").get(0).path("auth");
            assertThat(auth.path("user").asText()).isEqualTo("csiuser");
            assertThat(auth.path("secret").asText()).isEqualTo("csi-secret-0123");
            assertThat(auth.path("mutual_user").asText()).isEqualTo("csitarget");
            assertThat(cfg.path("backstores").path(asset).path("thin").asBoolean(true)).isFalse();
            // mutual CHAP: libiscsi proves the initiator's secret and checks the target's (target_user/_password)
            String url = "iscsi://csiuser%csi-secret-0123@127.0.0.1:" + s.port() + "/" + iqn + "/0"
                    + "?target_user=csitarget&target_password=csi-target-secret-4567";
            Served.Run inq = Served.libiscsi("iscsi-inq", url);
            assertThat(inq.status()).as(inq.out()).isZero();
            Served.Run without = Served.libiscsi("iscsi-inq", "iscsi://127.0.0.1:" + s.port() + "/" + iqn + "/0");
            assertThat(without.status()).as("no CHAP, no login: " + without.out()).isNotZero();
        }
    }

    /**
     * Proxmox VE's "ZFS over iSCSI" LIO provider: one targetcli one-liner per step, the LUN number read from the
     * output ({@code /LUN (\d+)/}), saveconfig after each change, and LUNs listed from /etc/target/saveconfig.json
     * itself (here the file serve was started from, written back in LIO's format).
     */
    @Test
    void proxmoxCreateListAndDeleteOfALun() throws Exception {
        String iqn = "iqn.2018-04.at.bestsolution.somehost:target";
        // LIO.pm names the backstore after the pool ($get_backstore_prefix: "tank/vm" -> "tank-vm-") and the zvol
        String vol = "tank-vm-100-disk-0";
        Path config = dir.resolve("saveconfig.json");
        Files.writeString(config, "{ \"fabric_modules\": [], \"storage_objects\": [], \"targets\": [] }\n");
        try (Served.Loop zvol = Served.Loop.attach(dir, 16L << 20); Served s = Served.start(config,
                dir.resolve("a.sock"))) {
            // the administrator's setup, done once by hand
            assertThat(s.oneShot("/iscsi", "create", iqn).status()).isZero();
            assertThat(s.oneShot("/iscsi/" + iqn + "/tpg1", "set", "attribute", "generate_node_acls=1").status())
                    .isZero();

            Served.Run bs = s.oneShot("/backstores/block", "create", "name=" + vol, "dev=" + zvol.device());
            assertThat(bs.status()).as(bs.err()).isZero();
            Served.Run tpu = s.oneShot("/backstores/block/" + vol, "set", "attribute", "emulate_tpu=1");
            assertThat(tpu.status()).as(tpu.err()).isZero();
            Served.Run lun = s.oneShot("/iscsi/" + iqn + "/tpg1/luns/", "create", "/backstores/block/" + vol);
            assertThat(lun.status()).as(lun.err()).isZero();
            Matcher m = Pattern.compile("LUN (\\d+)").matcher(lun.out());
            assertThat(m.find()).as(lun.out()).isTrue();
            int index = Integer.parseInt(m.group(1));
            assertThat(lun.out()).contains("Created LUN " + index + ".");
            Served.Run save = s.oneShot("saveconfig");
            assertThat(save.status()).as(save.err()).isZero();
            assertThat(save.out()).contains("Configuration saved to " + config);

            assertThat(lunIndex(config, iqn, "/backstores/block/" + vol)).isEqualTo(index);
            assertThat(s.iscsiLs()).contains(iqn).contains("Lun:" + index);
            assertThat(s.oneShot("ls", "/iscsi/" + iqn + "/tpg1/luns").out())
                    .contains("lun" + index + " [block/" + vol + " (" + zvol.device() + ")]");

            Served.Run del = s.oneShot("/iscsi/" + iqn + "/tpg1/luns/", "delete", "lun" + index);
            assertThat(del.status()).as(del.err()).isZero();
            assertThat(del.out()).contains("Deleted LUN " + index + ".");
            Served.Run delBs = s.oneShot("/backstores/block", "delete", vol);
            assertThat(delBs.status()).as(delBs.err()).isZero();
            assertThat(s.oneShot("saveconfig").status()).isZero();
            assertThat(lunIndex(config, iqn, "/backstores/block/" + vol)).isEqualTo(-1);
            assertThat(s.iscsiLs()).doesNotContain("Lun:" + index);
        }
    }

    /** As Proxmox reads the file: targets[fabric=iscsi, wwn].tpgs[tag=1].luns[storage_object].index, or -1. */
    private static int lunIndex(Path saveconfig, String iqn, String storageObject) throws Exception {
        JsonNode root = Json.mapper().readTree(Files.readString(saveconfig));
        for (JsonNode t : root.path("targets")) {
            if (!t.path("fabric").asText().equals("iscsi") || !t.path("wwn").asText().equals(iqn)) {
                continue;
            }
            for (JsonNode tpg : t.path("tpgs")) {
                if (tpg.path("tag").asInt() == 1) {
                    for (JsonNode l : tpg.path("luns")) {
                        if (l.path("storage_object").asText().equals(storageObject)) {
                            return l.path("index").asInt();
                        }
                    }
                }
            }
        }
        return -1;
    }
}
