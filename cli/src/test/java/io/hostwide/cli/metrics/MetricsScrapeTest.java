package io.hostwide.cli.metrics;

import io.hostwide.blk.api.BlockDevice;
import io.hostwide.cli.CliRun;
import io.hostwide.iscsi.initiator.IscsiDeviceProvider;
import io.hostwide.management.TargetAssembly;
import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.config.ServeConfigLoader;
import io.hostwide.management.metrics.MetricsServer;
import io.hostwide.management.metrics.ServeMetrics;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code /metrics} of a serve assembly that real initiators used: the page passes a strict format check and
 * {@code promtool check metrics}, holds the bytes a bench wrote (exactly), a live session's own series, login
 * counts and Ceph's names; and a real Prometheus scraping it gets the value through its query API. promtool and
 * prometheus come from Debian's {@code prometheus} package, which .ci/run installs; the tests that need them skip,
 * saying so, only where the binaries are absent.
 */
class MetricsScrapeTest {
    private static final String IQN = "iqn.2026-12.io.hostwide:metrics";
    private static final long WRITTEN = 4L << 20;
    private static TargetAssembly assembly;
    private static MetricsServer metrics;
    private static String iscsiBase;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    static void serveAndWrite() throws Exception {
        ServeConfig cfg = ServeConfigLoader.parse("c", """
                { "backstores": { "a": { "type": "ram", "size": "16m" }, "b": { "type": "ram", "size": "8m" } },
                  "targets": [ { "name": "%s",
                                 "luns": [ { "lun": 0, "backstore": "a" }, { "lun": 1, "backstore": "b" } ] } ] }
                """.formatted(IQN));
        assembly = TargetAssembly.build(cfg, List.of(new InetSocketAddress("127.0.0.1", 0)), null);
        assembly.start();
        metrics = MetricsServer.start(new InetSocketAddress("127.0.0.1", 0),
                new ServeMetrics(assembly.core(), assembly.server(), ServeMetrics.Compat.CEPH_ISCSI, "gw1")::scrape);
        iscsiBase = "iscsi:url=iscsi://127.0.0.1:" + assembly.boundAddresses().get(0).getPort() + "/" + IQN + "/";
        CliRun r = CliRun.run("bench", "--device", iscsiBase + "0", "--rw", "write", "--bs", "64k", "--size", "4m",
                "--iodepth", "4", "--json");
        assertThat(r.status()).as(r.err()).isZero();
    }

    @AfterAll
    static void stop() {
        if (metrics != null) {
            metrics.close();
        }
        if (assembly != null) {
            assembly.close();
        }
    }

    private static HttpResponse<String> get(String path, String method) throws Exception {
        URI u = URI.create("http://127.0.0.1:" + metrics.address().getPort() + path);
        return HTTP.send(HttpRequest.newBuilder(u).method(method, HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void thePageIsWellFormedAndCountsWhatInitiatorsDid() throws Exception {
        try (BlockDevice live = new IscsiDeviceProvider().open("url=iscsi://127.0.0.1:"
                + assembly.boundAddresses().get(0).getPort() + "/" + IQN + "/1")) {
            assertThat(live.capacityBytes()).isEqualTo(8L << 20);
            HttpResponse<String> r = get("/metrics", "GET");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type")).hasValue(MetricsServer.CONTENT_TYPE);
            Map<String, Double> s = ExpositionChecker.check(r.body());

            assertThat(s).containsEntry(lun0("hostwide_lun_written_bytes_total"), (double) WRITTEN);
            assertThat(s).containsEntry(lun0("hostwide_lun_commands_total", "op", "write"), 64.0);
            assertThat(s).containsEntry(lun0("hostwide_lun_command_latency_seconds_count", "op", "write"), 64.0);
            assertThat(s.get(lun0("hostwide_lun_command_latency_seconds_sum", "op", "write"))).isPositive();
            // each new nexus's first command meets the power-on UNIT ATTENTION (a CHECK CONDITION): an error
            assertThat(s.get(lun0("hostwide_lun_errors_total"))).isBetween(1.0, 2.0);
            // the bench's session may still be closing; the live one is certainly there
            assertThat(s.get(ExpositionChecker.key("hostwide_sessions", Map.of("target_iqn", IQN, "tpgt", "1"))))
                    .isGreaterThanOrEqualTo(1.0);
            assertThat(s.get("hostwide_logins_total{type=\"normal\"}")).isGreaterThanOrEqualTo(2.0);
            assertThat(s.get("hostwide_connections")).isGreaterThanOrEqualTo(1.0);
            // the open session's own series: its scan (INQUIRY, READ CAPACITY ...) on LUN 1
            String nexusOther = s.keySet().stream()
                    .filter(k -> k.startsWith("hostwide_session_commands_total{") && k.contains("lun=\"1\"")
                            && k.contains("op=\"other\"") && k.contains("initiator_iqn=\"iqn."))
                    .findFirst().orElseThrow(() -> new AssertionError("no session series for LUN 1:\n" + r.body()));
            assertThat(s.get(nexusOther)).isPositive();
            assertThat(s.keySet()).anyMatch(k -> k.startsWith("ceph_iscsi_lun_iops{client_iqn=\"iqn.")
                    && k.contains("lun_name=\"b\""));
            assertThat(s).containsEntry("ceph_iscsi_lun_size_bytes{gw_name=\"gw1\",lun_name=\"a\"}", 16.0 * (1 << 20));
            // hostwide's own names pass promtool's lint; Ceph's keep Ceph's spelling, which the lint flags (only that)
            assertThat(promtool(new ServeMetrics(assembly.core(), assembly.server(), ServeMetrics.Compat.NONE, "gw1")
                    .scrape())).isEmpty();
            assertThat(promtool(r.body()).lines().toList()).containsExactlyInAnyOrder(
                    "ceph_iscsi_lun_iops counter metrics should have \"_total\" suffix",
                    "ceph_iscsi_lun_read_bytes counter metrics should have \"_total\" suffix",
                    "ceph_iscsi_lun_write_bytes counter metrics should have \"_total\" suffix");
        }
    }

    /** The canonical key of a LUN 0 series, with extra label pairs. */
    private static String lun0(String name, String... extra) {
        Map<String, String> labels = new java.util.TreeMap<>(Map.of("backstore", "a", "lun", "0", "target_iqn", IQN,
                "tpgt", "1"));
        for (int i = 0; i < extra.length; i += 2) {
            labels.put(extra[i], extra[i + 1]);
        }
        return ExpositionChecker.key(name, labels);
    }

    @Test
    void onlyGetAndHeadOfMetricsAreServed() throws Exception {
        assertThat(get("/", "GET").statusCode()).isEqualTo(404);
        assertThat(get("/metrics/x", "GET").statusCode()).isEqualTo(404);
        HttpResponse<String> post = get("/metrics", "POST");
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
        HttpResponse<String> head = get("/metrics", "HEAD");
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
    }

    /**
     * Debian's promtool: a page it cannot parse fails the test; otherwise its lint findings (one per line) are
     * returned, empty when clean.
     */
    private static String promtool(String page) throws Exception {
        Path bin = binary("promtool");
        Process p = new ProcessBuilder(bin.toString(), "check", "metrics").redirectErrorStream(true).start();
        try (var in = p.getOutputStream()) {
            in.write(page.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(out).as("promtool could not parse the page").doesNotContain("error while linting");
        assertThat(p.exitValue() == 0 || !out.isBlank()).isTrue();
        return out.strip();
    }

    /** A real Prometheus on loopback scrapes serve; its query API must return the bytes the bench wrote. */
    @Test
    void aRealPrometheusScrapesTheWrittenBytes(@TempDir Path dir) throws Exception {
        Path bin = binary("prometheus");
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        Path config = Files.writeString(dir.resolve("prometheus.yml"), """
                global:
                  scrape_interval: 1s
                scrape_configs:
                  - job_name: hostwide
                    static_configs:
                      - targets: ["127.0.0.1:%d"]
                """.formatted(metrics.address().getPort()));
        Process prom = new ProcessBuilder(bin.toString(), "--config.file=" + config,
                "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
        try {
            String query = "hostwide_lun_written_bytes_total{lun=\"0\",target_iqn=\"" + IQN + "\"}";
            URI u = URI.create("http://127.0.0.1:" + port + "/api/v1/query?query="
                    + URLEncoder.encode(query, StandardCharsets.UTF_8));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            String last = "";
            while (System.nanoTime() < deadline && prom.isAlive()) {
                try {
                    last = HTTP.send(HttpRequest.newBuilder(u).timeout(Duration.ofSeconds(10)).build(),
                            HttpResponse.BodyHandlers.ofString()).body();
                    if (last.contains("\"" + WRITTEN + "\"")) {
                        break;
                    }
                } catch (IOException notUpYet) {
                    last = notUpYet.toString();
                }
                Thread.sleep(250); // polling a condition that must come true, with a deadline
            }
            assertThat(last).as("Prometheus (log: %s) answered", Files.readString(dir.resolve("prometheus.log")))
                    .contains("\"status\":\"success\"")
                    .contains("\"job\":\"hostwide\"")
                    .contains("\"" + WRITTEN + "\"");
        } finally {
            prom.destroy(); // by this process handle (its PID) only
            if (!prom.waitFor(30, TimeUnit.SECONDS)) {
                prom.destroyForcibly();
            }
        }
    }

    private static Path binary(String name) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            Path p = Path.of(d, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        assumeTrue(false, name + " is not installed (Debian package prometheus; .ci/run installs it)");
        return null;
    }
}
