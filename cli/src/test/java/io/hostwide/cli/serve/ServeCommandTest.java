package io.hostwide.cli.serve;

import io.hostwide.management.TargetAssembly;

import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.config.ServeConfigLoader;

import io.hostwide.cli.Main;
import org.junit.jupiter.api.io.TempDir;
import java.nio.file.Path;
import java.nio.file.Files;
import java.io.IOException;
import io.hostwide.cli.CliRun;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ServeCommandTest {

    private static String[] run(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter(), true));
        int status = cl.execute(args);
        return new String[] {Integer.toString(status), err.toString()};
    }

    @Test
    void refusesNonLoopbackWithoutChap() {
        String[] r = run("serve", "--listen", "0.0.0.0:0");
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[1]).startsWith("hostwide serve: refusing to listen on 0.0.0.0:0 with targets that have no CHAP")
                .contains("--insecure").doesNotContain("\tat ");
    }

    @Test
    void badListenAndQueueDepthAreUsageErrors() {
        assertThat(run("serve", "--listen", "127.0.0.1:70000")[1]).contains("port 70000 is out of range");
        assertThat(run("serve", "--queue-depth", "0")[1]).contains("--queue-depth: 0 is out of range");
        assertThat(run("serve", "--poll-us", "-1")[1]).contains("--poll-us: -1 is out of range");
        assertThat(run("serve", "--config", "/nonexistent/hw.json")[1]).contains("/nonexistent/hw.json does not exist");
    }

    @Test
    void defaultAssemblyServesOnAFreeLoopbackPort() throws Exception {
        try (TargetAssembly a = TargetAssembly.build(TargetAssembly.defaultConfig(),
                List.of(new InetSocketAddress("127.0.0.1", 0)), null)) {
            a.start();
            InetSocketAddress bound = a.boundAddresses().get(0);
            assertThat(bound.getPort()).isPositive();
            try (Socket s = new Socket(bound.getAddress(), bound.getPort())) {
                assertThat(s.isConnected()).isTrue();
            }
            assertThat(a.summary()).anyMatch(l -> l.contains("LUN 0 = ram0"));
            assertThat(a.core().target(TargetAssembly.DEFAULT_TARGET)).isNotNull();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void thePendingLoginLimitOfTheConfigBitesAndStatusCountsIt() throws Exception {
        ServeConfig cfg = ServeConfigLoader.parse("c", """
                { "limits": { "pending_logins": 1 },
                  "backstores": { "a": { "type": "ram", "size": "1m" } },
                  "targets": [ { "name": "iqn.2026-12.io.hostwide:t", "luns": [ { "lun": 0, "backstore": "a" } ] } ] }
                """);
        try (TargetAssembly a = TargetAssembly.build(cfg, List.of(new InetSocketAddress("127.0.0.1", 0)), null)) {
            a.start();
            InetSocketAddress at = a.boundAddresses().get(0);
            try (Socket idle = new Socket(at.getAddress(), at.getPort());
                 Socket refused = new Socket(at.getAddress(), at.getPort())) {
                refused.setSoTimeout(5000); // a connection left open fails the read below
                int n;
                try {
                    n = refused.getInputStream().read();
                } catch (java.net.SocketException reset) {
                    n = -1;
                }
                assertThat(n).as("the second connection is closed at once").isEqualTo(-1);
                Map<String, Object> conns = (Map<String, Object>) a.status().get("connections");
                assertThat(conns).containsEntry("pending_logins", 1).containsEntry("refused_overall", 1L)
                        .containsEntry("refused_per_address", 0L);
                assertThat(idle.isClosed()).isFalse();
            }
        }
    }

    @Test
    void anExplicitMemoryThisJvmDoesNotEnforceIsAUsageError() {
        String[] r = run("serve", "--listen", "127.0.0.1:0", "--memory", "1g");
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[1]).startsWith("hostwide serve: --memory 1024m means a heap of 768 MiB")
                .contains("-Xmx768m -XX:MaxDirectMemorySize=256m").doesNotContain("\tat ");
        assertThat(run("serve", "--memory", "100m")[1]).contains("less than the minimum 256m");
    }

    @Test
    @SuppressWarnings("unchecked")
    void statsReportsEachBackstoreWithPercentilesInMicroseconds() {
        try (TargetAssembly a = TargetAssembly.build(TargetAssembly.defaultConfig(),
                List.of(new InetSocketAddress("127.0.0.1", 0)), null)) {
            var stats = a.core().device("ram0").stats();
            for (int i = 1; i <= 100; i++) {
                stats.record(io.hostwide.tcm.lu.DeviceStats.Kind.READ, 4096, i * 1_000L, 0, false);
            }
            stats.record(io.hostwide.tcm.lu.DeviceStats.Kind.WRITE, 512, 2_000, 2, false);
            Map<String, Object> m = a.stats();
            List<Map<String, Object>> stores = (List<Map<String, Object>>) m.get("backstores");
            assertThat(stores).hasSize(1);
            Map<String, Object> ram = stores.get(0);
            assertThat(ram.get("name")).isEqualTo("ram0");
            Map<String, Object> reads = (Map<String, Object>) ram.get("reads");
            assertThat(reads.get("ops")).isEqualTo(100L);
            assertThat(reads.get("bytes")).isEqualTo(409_600L);
            Map<String, Object> lat = (Map<String, Object>) reads.get("latency_us");
            assertThat(lat).containsOnlyKeys("p50", "p90", "p99", "p99_9", "max");
            assertThat((Double) lat.get("p50")).isBetween(50.0, 56.3);
            assertThat((Double) lat.get("max")).isBetween(100.0, 112.5);
            assertThat(ram.get("errors")).isEqualTo(1L);
        }
    }

    /**
     * A backstore's physical_block_size becomes the device's LBPPBE (READ CAPACITY(16)) and unmap granularity;
     * its sanitize_rate paces SANITIZE OVERWRITE.
     */
    @Test
    void physicalBlockSizeReachesTheDevice() {
        ServeConfig cfg = ServeConfigLoader.parse("c", """
                { "backstores": { "ram0": { "type": "ram", "size": "64m", "physical_block_size": 4096,
                                           "sanitize_rate": "128m" },
                                  "ram1": { "type": "ram", "size": "64m" } },
                  "targets": [ { "name": "iqn.2026-12.io.hostwide:target0",
                                 "luns": [ { "lun": 0, "backstore": "ram0" }, { "lun": 1, "backstore": "ram1" } ] } ] }
                """);
        try (TargetAssembly a = TargetAssembly.build(cfg, List.of(new InetSocketAddress("127.0.0.1", 0)), null)) {
            var attrs = a.core().device("ram0").attributes();
            assertThat(a.core().device("ram0").blockSize()).isEqualTo(512);
            assertThat(attrs.logicalBlocksPerPhysicalBlockExponent()).isEqualTo(3);
            assertThat(attrs.effectiveUnmapGranularity()).isEqualTo(8);
            assertThat(attrs.sanitizeRate()).isEqualTo(128L << 20);
            assertThat(a.core().device("ram1").attributes().logicalBlocksPerPhysicalBlockExponent()).isZero();
            assertThat(a.core().device("ram1").attributes().sanitizeRate()).isZero();
            assertThat(a.summary()).anyMatch(l -> l.contains("physical blocks of 4096"));
        }
    }

    /**
     * An image that passes the loader's checks but cannot be opened names file, line and key too: here a dangling
     * symbolic link into a directory that does not exist (the loader sees a missing file in an existing directory).
     */
    @Test
    void serveNamesTheKeyOfABackstoreItCannotOpen(@TempDir Path dir) throws IOException {
        Path link = Files.createSymbolicLink(dir.resolve("d.img"), dir.resolve("gone/d.img"));
        Path cfg = dir.resolve("serve.json");
        Files.writeString(cfg, """
                {
                  "backstores": {
                    "d": { "type": "file", "path": "%s", "size": "1m" }
                  }
                }
                """.formatted(link));
        CliRun r = CliRun.run("serve", "--config", cfg.toString(), "--listen", "127.0.0.1:0");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).startsWith("hostwide serve: " + cfg + " line 3: backstores.d.path: cannot open ")
                .contains("no such file or directory").doesNotContain("Exception");
    }

    /** The HTTP management API can create and delete every target: beyond loopback only with a token. */
    @Test
    void theHttpApiBeyondLoopbackNeedsAToken() {
        CliRun r = CliRun.run("serve", "--listen", "127.0.0.1:0", "--api", "0.0.0.0:0");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("--api: refusing to serve the management API on 0.0.0.0:0 without a token")
                .doesNotContain("Exception");
        CliRun orphan = CliRun.run("serve", "--listen", "127.0.0.1:0", "--api-token-file", "/nonexistent");
        assertThat(orphan.status()).isEqualTo(2);
        assertThat(orphan.err()).contains("--api-token-file: only with --api");
    }
}
