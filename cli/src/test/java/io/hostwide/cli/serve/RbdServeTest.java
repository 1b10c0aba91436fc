package io.hostwide.cli.serve;

import io.hostwide.management.Admin;
import io.hostwide.management.TargetAssembly;
import io.hostwide.management.api.JsonRpc;
import io.hostwide.management.api.ManagementApi;
import io.hostwide.management.config.ServeConfig;
import io.hostwide.management.config.ServeConfigLoader;
import io.hostwide.tcm.backstore.rbd.Rbd;
import io.hostwide.tcm.lu.Device;

import com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An RBD image served as {@code hostwide serve} serves it ({@code "type": "rbd"} in its configuration, issue 15),
 * seen by libiscsi's {@code iscsi-inq} and {@code iscsi-readcapacity16}: the bundled single-node cluster
 * (bin/ceph-test-cluster, started and destroyed here) with a 64 MiB image. Skipped without Ceph or libiscsi-bin,
 * unless HOSTWIDE_REQUIRE_CEPH=1 (CI), where missing Ceph fails.
 */
class RbdServeTest {

    @TempDir
    Path dir;

    private static void unavailable(String why) {
        if ("1".equals(System.getenv("HOSTWIDE_REQUIRE_CEPH"))) {
            fail(why + " (HOSTWIDE_REQUIRE_CEPH=1)");
        }
        assumeTrue(false, why);
    }

    private static String run(int timeoutSeconds, String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes(); // ends when the process closes its output
        assertThat(p.waitFor(timeoutSeconds, TimeUnit.SECONDS)).as("%s finished", command[0]).isTrue();
        String text = new String(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("%s: %s", String.join(" ", command), text).isZero();
        return text;
    }

    private static JsonNode call(JsonRpc rpc, String method, String params) {
        return JsonRpc.parse(rpc.handle(JsonRpc.request(1, method, params)));
    }

    /**
     * backstore_resize on rbd: the image grows in the cluster (rbd info sees it), the LUN serves the new capacity,
     * the configuration keeps no size for it, and a shrink is refused unless allow_shrink is given.
     */
    private void resizeThroughTheApi(TargetAssembly a, Path cluster, String url) throws Exception {
        JsonRpc rpc = new JsonRpc(new ManagementApi(a, new Admin(a, null, null), null));
        Device d = a.core().device("rbd0");
        JsonNode grown = call(rpc, "backstore_resize", "{\"name\":\"rbd0\",\"size\":\"128m\"}");
        assertThat(grown.path("result").path("resized").asBoolean()).as("%s", grown).isTrue();
        assertThat(grown.path("result").path("size_bytes").asLong()).isEqualTo(128L << 20);
        assertThat(d.blockCount()).isEqualTo((128L << 20) / 512);
        String conf = cluster.resolve("ceph.conf").toString();
        assertThat(run(60, "rbd", "-c", conf, "info", "rbd/img0")).contains("size 128 MiB");
        assertThat(run(60, "/usr/bin/iscsi-readcapacity16", url))
                .contains("RETURNED LOGICAL BLOCK ADDRESS:" + ((128L << 20) / 512 - 1));
        assertThat(a.current().backstores().get("rbd0").size()).as("the image's size is not stored").isNull();
        // shrinking discards the image's data past the new end: refused without allow_shrink
        JsonNode refused = call(rpc, "backstore_resize", "{\"name\":\"rbd0\",\"size\":\"32m\"}");
        assertThat(refused.path("error").path("message").asText()).as("%s", refused).contains("allow_shrink");
        assertThat(d.blockCount()).isEqualTo((128L << 20) / 512);
        JsonNode shrunk = call(rpc, "backstore_resize",
                "{\"name\":\"rbd0\",\"size\":\"32m\",\"allow_shrink\":true}");
        assertThat(shrunk.path("result").path("size_bytes").asLong()).as("%s", shrunk).isEqualTo(32L << 20);
        assertThat(run(60, "rbd", "-c", conf, "info", "rbd/img0")).contains("size 32 MiB");
        assertThat(a.current().backstores().get("rbd0").size()).isNull();
    }

    @Test
    void anRbdImageServedToLibiscsi() throws Exception {
        if (Rbd.unavailable() != null) {
            unavailable(Rbd.unavailable());
        }
        for (String p : List.of("/usr/bin/ceph-mon", "/usr/bin/ceph-osd", "/usr/bin/ceph-mgr")) {
            if (!Files.isExecutable(Path.of(p))) {
                unavailable(p + " is not installed (apt-get install ceph-mon ceph-mgr ceph-osd ceph-common)");
            }
        }
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/iscsi-inq")), "libiscsi-bin is not installed");
        Path script = Path.of("..", "bin", "ceph-test-cluster").toAbsolutePath().normalize();
        Path cluster = Files.createTempDirectory("hostwide-ceph-serve-");
        try {
            run(240, script.toString(), "start", cluster.toString(), "--image", "img0:64M");
            String json = """
                    {
                      "backstores": { "rbd0": { "type": "rbd", "pool": "rbd", "image": "img0", "conf": "%s" } },
                      "targets": [ { "name": "iqn.2026-12.io.hostwide:rbd", "luns": [ { "lun": 0, "backstore": "rbd0" } ] } ]
                    }
                    """.formatted(cluster.resolve("ceph.conf"));
            ServeConfig cfg = ServeConfigLoader.parse("rbd.json", json);
            try (TargetAssembly a = TargetAssembly.build(cfg, List.of(new InetSocketAddress("127.0.0.1", 0)), null)) {
                a.start();
                String url = "iscsi://127.0.0.1:" + a.boundAddresses().get(0).getPort() + "/iqn.2026-12.io.hostwide:rbd/0";
                String inq = run(60, "/usr/bin/iscsi-inq", url);
                assertThat(inq).contains("Peripheral Device Type:DIRECT_ACCESS").contains("hostwide");
                String cap = run(60, "/usr/bin/iscsi-readcapacity16", url);
                assertThat(cap).contains("RETURNED LOGICAL BLOCK ADDRESS:" + ((64L << 20) / 512 - 1))
                        .contains("LOGICAL BLOCK LENGTH IN BYTES:512")
                        .contains("LBPME:1 LBPRZ:1");
                resizeThroughTheApi(a, cluster, url);
            }
        } finally {
            List<String> destroy = new ArrayList<>(List.of(script.toString(), "destroy", cluster.toString()));
            new ProcessBuilder(destroy).inheritIO().start().waitFor(120, TimeUnit.SECONDS);
        }
    }
}
