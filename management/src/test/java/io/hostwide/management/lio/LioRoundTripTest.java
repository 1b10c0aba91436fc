package io.hostwide.management.lio;

import com.fasterxml.jackson.databind.JsonNode;
import io.hostwide.management.config.ConfigPlaces;
import io.hostwide.management.config.ServeConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LIO file -> ServeConfig -> export -> the same objects: compared as hostwide configurations (defaults written out)
 * and as LIO objects (storage objects, targets, LUNs, ACLs, mapped LUNs, CHAP, portals). What cannot round-trip is
 * asserted reported on the way in.
 */
class LioRoundTripTest {

    @TempDir
    Path dir;

    private LioImport.Result in(String name, String text) {
        return LioImport.convert(ConfigPlaces.of(name, text), ConfigFilesTest.tree(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"fileio-mutual-chap.json", "block-alua.json", "demo-mode.json", "ramdisk.json"})
    void lioToServeConfigToLioKeepsTheObjects(String fixture) {
        String original = LioFixtures.text(fixture, dir);
        ServeConfig first = in(fixture, original).config();
        LioExport.Result out = LioExport.convert(first);
        String exported = out.text();
        LioImport.Result again = in("exported.json", exported);
        assertEquals(LioFixtures.normalized(first), LioFixtures.normalized(again.config()));
        assertEquals(objects(ConfigFilesTest.tree(original)), objects(ConfigFilesTest.tree(exported)));
        // What the export writes, it reads back without a word lost.
        assertEquals(List.of(), again.warnings().stream().filter(w -> !w.contains(".wwn=")).toList());
    }

    /** The things rtslib's restore creates, keyed as it finds them; plugin aliases (rd_mcp, iblock) folded. */
    static Map<String, Object> objects(JsonNode root) {
        Map<String, Object> m = new TreeMap<>();
        for (JsonNode so : root.path("storage_objects")) {
            String plugin = plugin(so.path("plugin").asText());
            m.put("/backstores/" + plugin + "/" + so.path("name").asText(),
                    so.path("dev").asText("") + " " + so.path("size").asText("") + " nullio=" + so.path("nullio")
                            .asBoolean(false));
        }
        for (JsonNode t : root.path("targets")) {
            JsonNode tpg = t.path("tpgs").path(0);
            String at = t.path("fabric").asText() + " " + t.path("wwn").asText();
            for (JsonNode lun : tpg.path("luns")) {
                String[] ref = lun.path("storage_object").asText().split("/");
                m.put(at + " lun " + lun.path("index").asInt(), plugin(ref[2]) + "/" + ref[3]);
            }
            for (JsonNode p : tpg.path("portals")) {
                m.put(at + " portal " + p.path("ip_address").asText() + ":" + p.path("port").asInt(), "");
            }
            m.put(at + " demo", tpg.path("attributes").path("generate_node_acls").asInt());
            m.put(at + " chap", chap(tpg.path("attributes").path("generate_node_acls").asInt() == 1 ? tpg : null));
            for (JsonNode acl : tpg.path("node_acls")) {
                String a = at + " acl " + acl.path("node_wwn").asText();
                m.put(a + " chap", chap(acl));
                for (JsonNode ml : acl.path("mapped_luns")) {
                    m.put(a + " mapped " + ml.path("index").asInt(), ml.path("tpg_lun").asInt() + " wp="
                            + ml.path("write_protect").asBoolean());
                }
            }
        }
        return m;
    }

    private static String chap(JsonNode n) {
        if (n == null) {
            return "";
        }
        return n.path("chap_userid").asText("") + "/" + n.path("chap_password").asText("") + "/"
                + n.path("chap_mutual_userid").asText("") + "/" + n.path("chap_mutual_password").asText("");
    }

    private static String plugin(String p) {
        return switch (p) {
            case "rd_mcp" -> "ramdisk";
            case "iblock" -> "block";
            default -> p;
        };
    }

    /**
     * Proxmox VE's LIO provider (pve-storage PVE/Storage/LunCmd/LIO.pm) reads the file so: the target whose fabric
     * is iscsi and whose wwn is the storage's, the TPG whose tag equals N of its "tpgN" setting, and each LUN's index
     * (digits) and storage_object (under /backstores/block), dying on anything else.
     */
    @Test
    void proxmoxFindsItsLunsInTheExport() {
        ServeConfig cfg = in("block-alua.json", LioFixtures.text("block-alua.json", dir)).config();
        JsonNode exported = ConfigFilesTest.tree(LioExport.convert(cfg).text());
        List<String> found = new java.util.ArrayList<>();
        for (JsonNode target : exported.path("targets")) {
            if (!target.path("fabric").asText().equals("iscsi")
                    || !target.path("wwn").asText().equals("iqn.2003-01.org.linux-iscsi.pve-storage.x8664:sn.4e3f2a1b0c9d")) {
                continue;
            }
            for (JsonNode tpg : target.path("tpgs")) {
                if (tpg.path("tag").isIntegralNumber() && tpg.path("tag").asInt() == 1) { // lio_tpg tpg1
                    for (JsonNode lun : tpg.path("luns")) {
                        assertTrue(lun.path("index").asText().matches("\\d+"), lun.toString());
                        assertTrue(lun.path("storage_object").asText().matches("/backstores/block/.*"), lun.toString());
                        found.add(lun.path("index").asText() + " " + lun.path("storage_object").asText());
                    }
                }
            }
        }
        assertEquals(List.of("0 /backstores/block/tank-vm-101-disk-0", "1 /backstores/block/tank-vm-102-disk-0"), found);
    }

    /** The fields that cannot round-trip are each reported on import; nothing is dropped without a line. */
    @Test
    void whatCannotRoundTripIsReported() {
        List<String> w = in("block-alua.json", LioFixtures.text("block-alua.json", dir)).warnings();
        for (String expected : List.of(
                "storage_objects[0].wwn=",                                    // unit serial
                "storage_objects[1].alua_tpgs[1]: ALUA target port group 'ao_local'", // ALUA groups
                "targets[0].tpgs[0].luns[0].alua_tg_pt_gp_name=ao_local")) {   // LUN's group
            assertTrue(w.stream().anyMatch(l -> l.contains(expected)), expected + " not in\n" + String.join("\n", w));
        }
        List<String> f = in("fileio-mutual-chap.json", LioFixtures.text("fileio-mutual-chap.json", dir)).warnings();
        assertTrue(f.stream().anyMatch(l -> l.contains("parameters.MaxXmitDataSegmentLength=262144")));
        assertTrue(f.stream().anyMatch(l -> l.contains("node_acls[0].attributes.nopin_response_timeout=30")));
    }

    @Test
    void exportReportsWhatLioCannotSay() {
        ServeConfig cfg = new ServeConfig(List.of("127.0.0.1:3364"), new ServeConfig.Session(null, 5000, null), null,
                Map.of("d", new ServeConfig.Backstore("file", "1g", "/srv/d.img", 4096, true, null, null, true, true,
                        false, 16384, "128m")),
                List.of(new ServeConfig.Target("iqn.2026-12.io.hostwide:t", null, null,
                        List.of(new ServeConfig.Lun(0, "d")), null)), new ServeConfig.Limits(64, null, null), null);
        List<String> w = LioExport.convert(cfg).warnings();
        assertEquals(List.of(
                "backstores.d.direct=true: no LIO equivalent, not exported",
                "backstores.d.removable=true: no LIO equivalent, not exported",
                "backstores.d.physical_block_size=16384: no LIO equivalent, not exported",
                "backstores.d.sanitize_rate=128m: no LIO equivalent, not exported",
                "session.nop_in_interval_ms=5000: LIO sets NOP-In per node ACL (nopin_timeout, seconds); not exported",
                "limits: LIO has no cap on connections before login; not exported"), w);
    }

    /** rtslib writes IPv6 portal addresses in brackets; they come back as hostwide's [v6]:port. */
    @Test
    void ipv6PortalsKeepRtslibsBrackets() {
        ServeConfig cfg = new ServeConfig(List.of("[::1]:3260", "127.0.0.1:3261"), null, null, Map.of(), List.of(
                new ServeConfig.Target("iqn.2026-12.io.hostwide:t", null, null, List.of(), null)), null, null);
        String text = LioExport.convert(cfg).text();
        assertTrue(text.contains("\"ip_address\": \"[::1]\""), text);
        assertEquals(List.of("[::1]:3260", "127.0.0.1:3261"), in("x.json", text).config().portals());
    }

    /**
     * Every portal deleted live ({@code "portals": []}) stays so through LIO's format: TPGs with an empty portal list,
     * read back as no portal rather than serve's default, so that a restart listens where the running serve did.
     */
    @Test
    void noPortalsStayNoPortals() {
        ServeConfig cfg = new ServeConfig(List.of(), null, null, Map.of(), List.of(
                new ServeConfig.Target("iqn.2026-12.io.hostwide:t", null, null, List.of(), null)), null, null);
        String text = LioExport.convert(cfg).text();
        assertTrue(text.contains("\"portals\": []"), text);
        assertEquals(List.of(), in("x.json", text).config().portals());
        ServeConfig unset = new ServeConfig(null, null, null, Map.of(), List.of(
                new ServeConfig.Target("iqn.2026-12.io.hostwide:t", null, null, List.of(), null)), null, null);
        assertEquals(List.of("127.0.0.1:3260"), in("y.json", LioExport.convert(unset).text()).config().portals());
    }

    /** rtslib writes json.dump(sort_keys=True, indent=2); so do we, so a diff against targetcli's file is clean. */
    @Test
    void theTextIsLaidOutAsRtslibWritesIt() {
        ServeConfig cfg = new ServeConfig(List.of("127.0.0.1:3260"), null, null,
                Map.of("r", new ServeConfig.Backstore("null", "1m", null, null, null, null, null, null, null, null,
                        null, null)), List.of(), null, null);
        String text = LioExport.convert(cfg).text();
        assertTrue(text.startsWith("{\n  \"fabric_modules\": [],\n  \"storage_objects\": [\n    {\n"
                + "      \"alua_tpgs\": [],\n      \"attributes\": {\n        \"block_size\": 512,\n"), text);
        assertTrue(text.contains("      \"name\": \"r\",\n      \"nullio\": true,\n      \"plugin\": \"ramdisk\",\n"
                + "      \"size\": 1048576\n    }\n  ],\n  \"targets\": []\n}\n"), text);
    }
}
