package io.hostwide.management.config;

import io.hostwide.management.TargetAssembly;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ServeConfigLoaderTest {

    private static final String GOOD = """
            {
              "portals": ["127.0.0.1:3260", "[::1]:3261"],
              "session": { "queue_depth": 64 },
              "backstores": {
                "ram0": { "type": "ram", "size": "1g", "thin": true },
                "disk": { "type": "file", "path": "/tmp/x.img", "size": "64m", "block_size": 4096 }
              },
              "targets": [ {
                "name": "iqn.2026-12.io.hostwide:target0",
                "auth": { "user": "alice", "secret": "twelve-chars!" },
                "luns": [ { "lun": 0, "backstore": "ram0" }, { "lun": 1, "backstore": "disk" } ],
                "acls": [ { "initiator": "iqn.1994-05.com.redhat:client", "luns": [ { "lun": 1, "mapped_lun": 0, "read_only": true } ] } ]
              } ]
            }
            """;

    @Test
    void acceptsAFullConfig() {
        ServeConfig cfg = ServeConfigLoader.parse("c.json", GOOD);
        assertThat(cfg.targets()).hasSize(1);
        assertThat(cfg.backstores().get("disk").blockSize()).isEqualTo(4096);
        assertThat(cfg.targets().get(0).acls().get(0).luns().get(0).readOnly()).isTrue();
        assertThat(cfg.targets().get(0).auth().toString()).doesNotContain("twelve");
    }

    @Test
    void typosNameTheKeyAndLine() {
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json", GOOD.replace("\"thin\"", "\"thinn\"")))
                .hasMessageContaining("c.json line 5")
                .hasMessageContaining("unknown key 'thinn'")
                .hasMessageContaining("backstores.ram0");
    }

    @Test
    void semanticErrorsNameThePlace() {
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace("\"backstore\": \"disk\"", "\"backstore\": \"dsk\"")))
                .hasMessage("c line 11: targets[0].luns[1].backstore: unknown backstore 'dsk' (defined: ram0, disk)");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace("\"lun\": 1, \"backstore\"", "\"lun\": 0, \"backstore\"")))
                .hasMessageContaining("targets[0].luns[1].lun 0 is used twice");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace("iqn.2026-12.io.hostwide:target0", "my target")))
                .hasMessageContaining("is not an iSCSI name");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace("twelve-chars!", "short")))
                .hasMessageContaining("auth.secret must be 12 to 255 characters")
                .hasMessageNotContaining("short");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace("\"type\": \"ram\"", "\"type\": \"tape\"")))
                .hasMessageContaining("backstores.ram0.type 'tape' is unknown");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace("\"64m\"", "\"1000\"")))
                .hasMessageContaining("is not a multiple of block_size 4096");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace("3261", "99999")))
                .hasMessageContaining("port 99999 is out of range");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace("\"queue_depth\": 64", "\"queue_depth\": \"lots\"")))
                .hasMessageContaining("session.queue_depth");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", "{ \"portals\": [ }"))
                .hasMessageStartingWith("c line 1: portals[0]: not valid JSON");
    }

    @Test
    void directIsAFileBackstoreOption() {
        ServeConfig cfg = ServeConfigLoader.parse("c", GOOD.replace("\"block_size\": 4096", "\"block_size\": 4096, \"direct\": true"));
        assertThat(cfg.backstores().get("disk").direct()).isTrue();
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace("\"thin\": true", "\"thin\": true, \"direct\": true")))
                .hasMessage("c line 5: backstores.ram0.direct (O_DIRECT) only applies to file and block backstores");
    }

    /**
     * O_DIRECT with 512-byte blocks on a filesystem of larger blocks is refused by name, before serving. Thick, so
     * the test JVM (no --enable-native-access here) never loads native hole support.
     */
    @Test
    void directBelowTheFilesystemBlockIsRefusedAtAssembly(@TempDir Path dir) throws IOException {
        Assumptions.assumeTrue(Files.getFileStore(dir).getBlockSize() > 512, "filesystem block is 512 bytes");
        String json = """
                { "backstores": { "d": { "type": "file", "path": "%s", "size": "1m", "direct": true, "thin": false } },
                  "targets": [ { "name": "iqn.2026-12.io.hostwide:t", "luns": [ { "lun": 0, "backstore": "d" } ] } ] }
                """.formatted(dir.resolve("d.img"));
        ServeConfig cfg = ServeConfigLoader.parse("c", json);
        assertThatThrownBy(() -> TargetAssembly.build(cfg, List.of(new InetSocketAddress("127.0.0.1", 0)), null))
                .hasMessageContaining("backstores.d")
                .hasMessageContaining("O_DIRECT needs block_size to be a multiple of the filesystem block size");
    }

    @Test
    void physicalBlockSizeIsAPowerOfTwoMultipleOfTheBlockSize() {
        String ram = "\"type\": \"ram\", \"size\": \"1g\", \"thin\": true";
        ServeConfig cfg = ServeConfigLoader.parse("c", GOOD.replace(ram, ram + ", \"physical_block_size\": 4096"));
        assertThat(cfg.backstores().get("ram0").physicalBlockSize()).isEqualTo(4096);
        assertThat(ServeConfigLoader.parse("c", GOOD.replace(ram, ram + ", \"physical_block_size\": 512"))
                .backstores().get("ram0").physicalBlockSize()).isEqualTo(512);
        for (int bad : new int[] {256, 1536, 3072, 4097, 0, -4096, 512 << 16}) {
            assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace(ram, ram + ", \"physical_block_size\": " + bad)))
                    .as("physical_block_size %d", bad)
                    .hasMessage("c line 5: backstores.ram0.physical_block_size " + bad
                            + " must be block_size 512 times a power of two (1 to 32768), e.g. 4096");
        }
        String disk = "\"block_size\": 4096";
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace(disk, disk + ", \"physical_block_size\": 2048")))
                .hasMessageContaining("backstores.disk.physical_block_size 2048 must be block_size 4096 times a power of two");
    }

    @Test
    void sanitizeRateIsAPositiveSize() {
        String ram = "\"type\": \"ram\", \"size\": \"1g\", \"thin\": true";
        assertThat(ServeConfigLoader.parse("c", GOOD.replace(ram, ram + ", \"sanitize_rate\": \"128m\""))
                .backstores().get("ram0").sanitizeRate()).isEqualTo("128m");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace(ram, ram + ", \"sanitize_rate\": \"0\"")))
                .hasMessage("c line 5: backstores.ram0.sanitize_rate must be positive (bytes per second, e.g. \"128m\")");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace(ram, ram + ", \"sanitize_rate\": \"fast\"")))
                .hasMessageContaining("backstores.ram0.sanitize_rate: 'fast' is not a size");
    }

    @Test
    void nopInSettingsAreCheckedMilliseconds() {
        String q = "\"queue_depth\": 64";
        ServeConfig cfg = ServeConfigLoader.parse("c", GOOD.replace(q, q + ", \"nop_in_interval_ms\": 0, \"nop_in_timeout_ms\": 90000"));
        assertThat(cfg.session().nopInIntervalMs()).isZero();
        assertThat(cfg.session().nopInTimeoutMs()).isEqualTo(90000);
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace(q, q + ", \"nop_in_timeout_ms\": 0")))
                .hasMessage("c line 3: session.nop_in_timeout_ms 0 is out of range (1..3600000)");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace(q, q + ", \"nop_in_interval_ms\": -1")))
                .hasMessage("c line 3: session.nop_in_interval_ms -1 is out of range (0..3600000)");
    }

    @Test
    void pendingLoginLimitsAreCheckedCounts() {
        String q = "\"session\": { \"queue_depth\": 64 },";
        ServeConfig cfg = ServeConfigLoader.parse("c", GOOD.replace(q,
                q + " \"limits\": { \"pending_logins\": 32, \"pending_logins_per_address\": 4 },"));
        assertThat(cfg.limits().total()).isEqualTo(32);
        assertThat(cfg.limits().perAddress()).isEqualTo(4);
        ServeConfig few = ServeConfigLoader.parse("c", GOOD.replace(q, q + " \"limits\": { \"pending_logins\": 8 },"));
        assertThat(few.limits().perAddress()).as("the per-address default never exceeds the overall cap").isEqualTo(8);
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace(q, q + " \"limits\": { \"pending_logins\": 0 },")))
                .hasMessage("c line 3: limits.pending_logins 0 is out of range (1..65536)");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace(q,
                q + " \"limits\": { \"pending_logins\": 8, \"pending_logins_per_address\": 9 },")))
                .hasMessage("c line 3: limits.pending_logins_per_address 9 is more than limits.pending_logins (8)");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace(q,
                q + " \"limits\": { \"pending_logins\": 8.5 },")))
                .hasMessageContaining("c line 3").hasMessageContaining("limits.pending_logins");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace(q,
                q + " \"limits\": { \"pending_login\": 8 },")))
                .hasMessageContaining("unknown key 'pending_login'").hasMessageContaining("pending_logins_per_address");
    }

    @Test
    void portalsParse() {
        assertThat(Portal.parse("x", "10.0.0.1")).isEqualTo(new Portal("10.0.0.1", 3260));
        assertThat(Portal.parse("x", "[::1]:3261")).isEqualTo(new Portal("::1", 3261));
        assertThat(Portal.parse("x", "127.0.0.1:0").isLoopback()).isTrue();
        assertThat(Portal.parse("x", "0.0.0.0:3260").isLoopback()).isFalse();
        assertThatThrownBy(() -> Portal.parse("--listen", "::1:3260")).hasMessageStartingWith("--listen: write IPv6");
    }

    /**
     * The hand-written files of issue 12's hardening report that got through or got an unclear message. Each must be
     * refused with the file, the line and the key, and no exception class name.
     */
    @Test
    void aDuplicateKeyIsRefusedNotResolvedByTheLastOne() {
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace("\"size\": \"1g\"", "\"size\": \"64m\", \"size\": \"1t\"")))
                .hasMessageStartingWith("c line 5: backstores.ram0.size: duplicate key 'size'")
                .hasMessageNotContaining("Exception");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", "{ \"backstores\": {},\n  \"backstores\": {} }"))
                .hasMessageStartingWith("c line 2: backstores: duplicate key 'backstores'");
    }

    @Test
    void integersMustBeWrittenAsIntegers() {
        String disk = "\"block_size\": 4096";
        for (String bad : new String[] {"512.5", "4096.0", "1e40", "\"4096\""}) {
            assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace(disk, "\"block_size\": " + bad)))
                    .as("block_size %s", bad)
                    .hasMessageStartingWith("c line 6: backstores.disk.block_size: ")
                    .hasMessageNotContaining("Exception").hasMessageNotContaining("class ");
        }
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace("\"queue_depth\": 64", "\"queue_depth\": 1e400")))
                .hasMessageStartingWith("c line 3: session.queue_depth: ");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace("\"thin\": true", "\"thin\": \"yes\"")))
                .hasMessageStartingWith("c line 5: backstores.ram0.thin: ");
    }

    @Test
    void aFileBackstorePathMustBeAFileInAnExistingDirectory(@TempDir Path dir) {
        String missing = dir.resolve("no/such/dir/d.img").toString();
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace("/tmp/x.img", missing)))
                .hasMessage("c line 6: backstores.disk.path " + missing + ": the directory " + dir.resolve("no/such/dir")
                        + " does not exist (serve creates the file, not its directory)");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace("/tmp/x.img", dir.toString())))
                .hasMessage("c line 6: backstores.disk.path " + dir + " is a directory; give the path of an image file "
                        + "(created if missing)");
    }

    /** RFC 7143 §4.2.7.1: 223 bytes at most. */
    @Test
    void aTooLongTargetNameNamesTheKey() {
        String longName = "iqn.2026-12.io.hostwide:" + "x".repeat(276);
        assertThatThrownBy(() -> ServeConfigLoader.parse("c", GOOD.replace("iqn.2026-12.io.hostwide:target0", longName)))
                .hasMessage("c line 9: targets[0].name is 300 bytes long; an iSCSI name is at most 223 bytes (RFC 7143 §4.2.7.1)");
        String ok = "iqn.2026-12.io.hostwide:" + "x".repeat(223 - 24);
        assertThat(ServeConfigLoader.parse("c", GOOD.replace("iqn.2026-12.io.hostwide:target0", ok)).targets().get(0).name())
                .hasSize(223);
    }
}
