package io.hostwide.cli.iscsi;

import static io.hostwide.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.hostwide.cli.CliRun;
import io.hostwide.management.util.Json;
import io.hostwide.iscsi.login.ChapPolicy;
import io.hostwide.iscsi.login.ChapSecret;
import io.hostwide.iscsi.server.IscsiTargetServer;
import io.hostwide.tcm.TargetCore;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code hostwide bench} and {@code copy} end to end on the {@code iscsi:} device kind against an in-process target. */
class IscsiDeviceKindTest {
    private static final String IQN = "iqn.2026-12.io.hostwide:cli-test";
    private static final String SECRET = "s3cret-never-printed";
    private static TargetCore core;
    private static IscsiTargetServer server;
    private static String base;


    @BeforeAll
    static void startTarget() throws Exception {
        core = new TargetCore();
        ScsiTarget t = core.addTarget(IQN);
        TargetPort port = core.addPort(t, 1, 5);
        port.addLun(0, core.addDevice("a", new RamBackstore(16L << 20, 512), new DeviceAttributes()));
        port.addLun(1, core.addDevice("b", new RamBackstore(16L << 20, 512), new DeviceAttributes()));
        port.demoMode(true, false);
        server = IscsiTargetServer.builder(core).export(port, new ChapPolicy(ChapSecret.of("alice", SECRET), null), "t")
                .portal(new InetSocketAddress("127.0.0.1", 0)).build();
        server.start();
        base = "iscsi:url=iscsi://127.0.0.1:" + server.boundAddresses().get(0).getPort() + "/" + IQN + "/";
    }

    @AfterAll
    static void stopTarget() {
        server.close();
        core.close();
    }

    private static String lun(int n) {
        return base + n + ",user=alice,secret=" + SECRET;
    }


    @Test
    void benchRunsOnAnIscsiLunAndNeverPrintsTheSecret() throws Exception {
        CliRun r = run("bench", "--device", lun(0), "--rw", "randrw", "--rwmixread", "50", "--size", "4m",
                "--iodepth", "8", "--json");
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode tree = Json.mapper().readTree(r.out());
        assertThat(tree.at("/read/ios").asLong() + tree.at("/write/ios").asLong()).isEqualTo(1024);
        assertThat(tree.at("/errors").asLong()).isZero();
        assertThat(r.out() + r.err()).doesNotContain(SECRET);
    }

    @Test
    void copyAndVerifyBetweenTwoIscsiLuns() throws Exception {
        CliRun r = run("copy", "--from", lun(0), "--to", lun(1), "--fill-source", "--verify", "--bs", "64k",
                "--count", "64", "--json");
        assertThat(r.status()).as(r.err() + r.out()).isZero();
        assertThat(r.out() + r.err()).doesNotContain(SECRET).contains("<redacted>");
    }

    @Test
    void badUrlIsAUsageError() {
        CliRun r = run("bench", "--device", "iscsi:url=http://127.0.0.1/x/0", "--size", "1m");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("iscsi://HOST[:PORT]/IQN/LUN");
    }

    @Test
    void refusedConnectionAndRefusedLoginAreOneLineErrors() throws Exception {
        int free;
        try (ServerSocket s = new ServerSocket(0)) {
            free = s.getLocalPort();
        }
        CliRun refused = run("bench", "--device", "iscsi:url=iscsi://127.0.0.1:" + free + "/" + IQN + "/0", "--size", "1m");
        assertThat(refused.status()).isEqualTo(1);
        assertThat(refused.err()).contains("cannot connect to iSCSI portal 127.0.0.1:" + free);
        CliRun badSecret = run("bench", "--device", base + "0,user=alice,secret=wrong-secret-123", "--size", "1m");
        assertThat(badSecret.status()).isEqualTo(1);
        assertThat(badSecret.err()).contains("AUTHENTICATION_FAILURE (0x02/0x01)").doesNotContain("wrong-secret-123");
    }
}
