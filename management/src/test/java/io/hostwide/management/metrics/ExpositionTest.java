package io.hostwide.management.metrics;

import io.hostwide.management.TargetAssembly;
import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.config.ServeConfigLoader;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The text format 0.0.4 as Prometheus parses it: escaping, grouping, histogram lines, numbers. */
class ExpositionTest {

    @Test
    void labelValuesAndHelpAreEscapedAsTheFormatSays() {
        Exposition e = new Exposition();
        e.family("x_total", Exposition.Type.COUNTER, "a \\ help\nline").sample(1, "initiator_iqn", "a\"b\\c\nd");
        assertThat(e.render()).isEqualTo("""
                # HELP x_total a \\\\ help\\nline
                # TYPE x_total counter
                x_total{initiator_iqn="a\\"b\\\\c\\nd"} 1
                """);
    }

    @Test
    void samplesAddedInterleavedAreGroupedByFamily() {
        Exposition e = new Exposition();
        e.family("a", Exposition.Type.GAUGE, "A").sample(1, "k", "1");
        e.family("b", Exposition.Type.GAUGE, "B").sample(2);
        e.family("a", Exposition.Type.GAUGE, "A").sample(3, "k", "2");
        assertThat(e.render()).isEqualTo("""
                # HELP a A
                # TYPE a gauge
                a{k="1"} 1
                a{k="2"} 3
                # HELP b B
                # TYPE b gauge
                b 2
                """);
    }

    @Test
    void aHistogramHasCumulativeBucketsInfSumAndCount() {
        Exposition e = new Exposition();
        e.family("lat_seconds", Exposition.Type.HISTOGRAM, "L")
                .histogram(new double[] {0.001, 0.5}, new long[] {2, 3}, 4, 1.25, "op", "read");
        assertThat(e.render()).isEqualTo("""
                # HELP lat_seconds L
                # TYPE lat_seconds histogram
                lat_seconds_bucket{op="read",le="0.001"} 2
                lat_seconds_bucket{op="read",le="0.5"} 3
                lat_seconds_bucket{op="read",le="+Inf"} 4
                lat_seconds_sum{op="read"} 1.25
                lat_seconds_count{op="read"} 4
                """);
    }

    @Test
    void numbersAreIntegersWhenWholeAndGoParsableOtherwise() {
        assertThat(Exposition.number(4194304)).isEqualTo("4194304");
        assertThat(Exposition.number(5.0E-5)).isEqualTo("5.0E-5");
        assertThat(Exposition.number(Double.POSITIVE_INFINITY)).isEqualTo("+Inf");
        assertThat(Exposition.number(Double.NaN)).isEqualTo("NaN");
        assertThat(Exposition.number(1e17)).isEqualTo("1.0E17");
    }

    /** Without any session: each LUN with its size and zero counters, a zero session gauge, every login reason. */
    @Test
    void anIdleServeHasEveryLunAndZeroSessions(@TempDir Path dir) {
        ServeConfig cfg = ServeConfigLoader.parse("c", """
                { "backstores": { "r": { "type": "ram", "size": "1m" },
                                  "f": { "type": "file", "path": "%s", "size": "2m", "queue_depth": 7 } },
                  "targets": [ { "name": "iqn.2026-12.io.hostwide:t",
                                 "luns": [ { "lun": 0, "backstore": "r" }, { "lun": 3, "backstore": "f" } ] } ] }
                """.formatted(dir.resolve("f.img")));
        try (TargetAssembly a = TargetAssembly.build(cfg, List.of(new InetSocketAddress("127.0.0.1", 0)), null)) {
            String page = new ServeMetrics(a.core(), a.server(), ServeMetrics.Compat.NONE, "gw").scrape();
            String t = "target_iqn=\"iqn.2026-12.io.hostwide:t\",tpgt=\"1\"";
            assertThat(page).contains("hostwide_lun_size_bytes{" + t + ",lun=\"0\",backstore=\"r\"} 1048576\n")
                    .contains("hostwide_lun_size_bytes{" + t + ",lun=\"3\",backstore=\"f\"} 2097152\n")
                    .contains("hostwide_lun_commands_total{" + t + ",lun=\"3\",backstore=\"f\",op=\"write\"} 0\n")
                    .contains("hostwide_sessions{" + t + "} 0\n")
                    .contains("hostwide_backstore_queue_depth{backstore=\"f\"} 7\n")
                    .contains("hostwide_backstore_queue_in_use{backstore=\"f\"} 0\n")
                    .doesNotContain("hostwide_backstore_queue_depth{backstore=\"r\"}") // RAM runs inline
                    .contains("hostwide_login_failures_total{reason=\"authentication_failure\"} 0\n")
                    .contains("hostwide_login_refusals_total{cap=\"per_address\"} 0\n")
                    .doesNotContain("ceph_iscsi");
            assertThat(new ServeMetrics(a.core(), a.server(), ServeMetrics.Compat.CEPH_ISCSI, "gw").scrape())
                    .contains("ceph_iscsi_lun_size_bytes{lun_name=\"f\",gw_name=\"gw\"} 2097152\n");
        }
    }
}
