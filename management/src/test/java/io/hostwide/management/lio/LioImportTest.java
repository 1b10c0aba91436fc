package io.hostwide.management.lio;

import io.hostwide.management.config.ServeConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** rtslib-fb saveconfig.json in: what maps, what is reported (one line per key), what is refused (naming the key). */
class LioImportTest {

    @TempDir
    Path dir;

    private ConfigFiles.Loaded load(String fixture) {
        return ConfigFiles.parse(fixture, LioFixtures.text(fixture, dir));
    }

    private static boolean has(List<String> lines, String text) {
        return lines.stream().anyMatch(l -> l.contains(text));
    }

    @Test
    void fileioWithMutualChapAndAWindowsNodeAcl() {
        ConfigFiles.Loaded l = load("fileio-mutual-chap.json");
        assertEquals(ConfigFormat.LIO, l.format());
        ServeConfig c = l.config();
        ServeConfig.Backstore b = c.backstores().get("win01");
        assertEquals("file", b.type());
        assertEquals(dir.resolve("win01.img").toString(), b.path());
        assertEquals("10g", b.size());
        assertEquals(512, b.blockSize());
        assertEquals(128, b.queueDepth());
        assertEquals(true, b.writeCache());
        assertEquals(false, b.thin()); // emulate_tpu=0, emulate_tpws=0
        ServeConfig.Target t = c.targets().get(0);
        assertEquals("iqn.2003-01.org.linux-iscsi.storage01.x8664:sn.9a1f2c3d4e5f", t.name());
        assertEquals("LIO Target", t.alias());
        assertEquals(List.of(new ServeConfig.Lun(0, "win01")), t.luns());
        assertEquals(List.of(new ServeConfig.Acl("iqn.1991-05.com.microsoft:host", null,
                List.of(new ServeConfig.MappedLun(0, 0, null)))), t.acls());
        assertEquals(new ServeConfig.Chap("iqn.1991-05.com.microsoft:host", "windows-host-secret",
                "iqn.2003-01.org.linux-iscsi.storage01.x8664:sn.9a1f2c3d4e5f", "target-side-secret"), t.auth());
        assertEquals(new ServeConfig.Chap("disc-initiator", "disc-initiator-secret", "disc-target",
                "disc-target-secret"), c.discoveryAuth());
        assertEquals(List.of("0.0.0.0:3260"), c.portals());
        assertEquals(64, c.session().queueDepth()); // default_cmdsn_depth
    }

    @Test
    void everyKeyWithoutAnEquivalentIsOneLineNamingFileLineAndPath() {
        List<String> w = load("fileio-mutual-chap.json").warnings();
        for (String line : w) {
            assertTrue(line.matches("fileio-mutual-chap\\.json line \\d+: .*"), line);
        }
        assertTrue(has(w, "line 54: storage_objects[0].attributes.max_unmap_lba_count=8192: no equivalent, ignored"),
                String.join("\n", w));
        assertTrue(has(w, "storage_objects[0].attributes.is_nonrot=0: hostwide always reports a non-rotating medium"));
        assertTrue(has(w, "storage_objects[0].attributes.emulate_model_alias=1: no equivalent"));
        assertTrue(has(w, "storage_objects[0].wwn=2c1b8d4e-7f3a-4b5c-9d0e-1f2a3b4c5d6e: hostwide has no configurable "
                + "unit serial"));
        assertTrue(has(w, "targets[0].tpgs[0].parameters.MaxBurstLength=262144: hostwide offers 1048576; ignored"));
        assertTrue(has(w, "targets[0].tpgs[0].parameters.MaxXmitDataSegmentLength=262144: no equivalent"));
        assertTrue(has(w, "targets[0].tpgs[0].attributes.login_keys_workaround=1: no equivalent"));
        assertTrue(has(w, "targets[0].tpgs[0].node_acls[0].attributes.dataout_timeout=3: no equivalent"));
        // Values hostwide has anyway pass without a word: a warning must mean something is lost.
        assertFalse(has(w, "emulate_caw"), String.join("\n", w));
        assertFalse(has(w, "emulate_3pc"));
        assertFalse(has(w, "ErrorRecoveryLevel"));
        assertFalse(has(w, "password"), "secrets never appear in warnings");
    }

    @Test
    void demoModeIsATargetWithoutAclsAndTheTpgCredentials() {
        ConfigFiles.Loaded l = load("demo-mode.json");
        ServeConfig.Target t = l.config().targets().get(0);
        assertNull(t.acls(), "generate_node_acls=1: any initiator, all LUNs");
        assertEquals(new ServeConfig.Chap("csi-user", "csi-initiator-secret", null, null), t.auth());
        assertEquals(true, l.config().backstores().get("pvc-3f1e").thin());
        assertEquals(List.of("127.0.0.1:3364"), l.config().portals());
    }

    @Test
    void ramdiskAndNullio() {
        ServeConfig c = load("ramdisk.json").config();
        assertEquals(new ServeConfig.Backstore("ram", "256m", null, 4096, false, null, false, null, null, null, null,
                null), c.backstores().get("scratch"));
        assertEquals("null", c.backstores().get("blackhole").type());
        assertEquals("1t", c.backstores().get("blackhole").size());
        ServeConfig.Target t = c.targets().get(0);
        assertEquals(List.of(new ServeConfig.Lun(0, "scratch"), new ServeConfig.Lun(7, "blackhole")), t.luns());
        assertEquals(new ServeConfig.MappedLun(7, 1, true), t.acls().get(0).luns().get(1));
        assertNull(t.auth());
    }

    /** Until serve has a block backstore, a block storage object is refused as such (flips when it lands). */
    @Test
    void blockStorageObjectsAreCheckedAsBlockBackstores() {
        // The file's zvol does not exist here: the block backstore's own check answers, naming LIO's key.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> load("block-alua.json"));
        assertTrue(e.getMessage().matches("block-alua\\.json line \\d+: storage_objects\\[0\\]\\.dev "
                + "/dev/zvol/tank/vm-101-disk-0 does not exist "
                + "\\(read as rtslib-fb saveconfig\\.json because of its key 'fabric_modules'\\)"),
                e.getMessage());
    }

    @Test
    void blockLunsWithTwoAluaGroupsConvertAndTheGroupsAreReported() {
        String text = LioFixtures.text("block-alua.json", dir);
        LioImport.Result r = LioImport.convert(io.hostwide.management.config.ConfigPlaces.of("block-alua.json", text),
                ConfigFilesTest.tree(text));
        ServeConfig.Backstore b = r.config().backstores().get("tank-vm-101-disk-0");
        assertEquals("block", b.type());
        assertEquals("/dev/zvol/tank/vm-101-disk-0", b.path());
        assertEquals(false, b.writeCache());
        assertEquals(List.of("192.0.2.10:3260", "192.0.2.11:3260"), r.config().portals());
        List<String> w = r.warnings();
        assertTrue(has(w, "storage_objects[0].alua_tpgs[1]: ALUA target port group 'ao_local' (id 1, access state 0)"),
                String.join("\n", w));
        assertTrue(has(w, "storage_objects[0].alua_tpgs[2]: ALUA target port group 'ano_remote' (id 2, access state 1)"));
        assertTrue(has(w, "targets[0].tpgs[0].luns[1].alua_tg_pt_gp_name=ano_remote: no equivalent"));
        assertFalse(has(w, "default_tg_pt_gp"));
    }

    @Test
    void refusalsNameThePathAndTheFormatAssumed() {
        String base = LioFixtures.text("ramdisk.json", dir);
        assertRefused(base.replace("\"/backstores/ramdisk/scratch\"", "\"/backstores/ramdisk/gone\""),
                "targets[0].tpgs[0].luns[0].storage_object '/backstores/ramdisk/gone' names no storage object");
        assertRefused(base.replace("\"fabric\": \"iscsi\"", "\"fabric\": \"loopback\""),
                "targets[0].fabric 'loopback': hostwide serves the iscsi fabric only");
        assertRefused(base.replace("\"plugin\": \"ramdisk\"", "\"plugin\": \"pscsi\""),
                "storage_objects[0].plugin 'pscsi' (SCSI pass-through) has no hostwide equivalent");
        assertRefused(base.replace("\"tpg_lun\": 7,", "\"tpg_lun\": 3,"),
                "node_acls[0].mapped_luns[1].tpg_lun must name a LUN of this target");
        assertRefused(base.replace("\"tpgs\": [\n        {", "\"tpgs\": [\n        {\"tag\": 2, \"enable\": true},\n        {"),
                "targets[0].tpgs[1]: target iqn.2003-01.org.linux-iscsi.lab:ram has 2 TPGs");
        assertRefused(base.replace("\"authentication\": 0", "\"authentication\": 1"),
                "attributes.authentication: CHAP is required but no credentials are set");
    }

    @Test
    void chapTheHostwideRulesRefuseIsNamedByItsLioKey() {
        String text = LioFixtures.text("fileio-mutual-chap.json", dir).replace("windows-host-secret", "short");
        assertRefused(text, "targets[0].tpgs[0].node_acls[0].chap_password must be 12 to 255 characters");
    }

    @Test
    void nodeAclsWithDifferentCredentialsAreRefused() {
        String text = LioFixtures.text("ramdisk.json", dir)
                .replace("\"node_wwn\": \"iqn.1994-05.com.redhat:lab1\"",
                        "\"node_wwn\": \"iqn.1994-05.com.redhat:lab1\", \"chap_userid\": \"a\", "
                                + "\"chap_password\": \"aaaaaaaaaaaaaa\"")
                .replace("\"authentication\": 0", "\"authentication\": 1");
        assertRefused(text, "node_acls[1].chap_userid: this node ACL's CHAP credentials differ");
    }

    private void assertRefused(String text, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConfigFiles.parse("saveconfig.json", text));
        assertTrue(e.getMessage().startsWith("saveconfig.json line "), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertTrue(e.getMessage().endsWith("(read as rtslib-fb saveconfig.json because of its key 'fabric_modules')"),
                e.getMessage());
    }
}
