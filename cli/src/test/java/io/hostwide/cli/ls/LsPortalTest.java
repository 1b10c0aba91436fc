package io.hostwide.cli.ls;

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

/**
 * {@code hostwide ls iscsi://HOST[:PORT]} against an in-process target server on two portals: an open target with two
 * LUNs and a CHAP-protected one with one LUN.
 */
class LsPortalTest {
    private static final String OPEN = "iqn.2026-12.io.hostwide:ls-open";
    private static final String GUARDED = "iqn.2026-12.io.hostwide:ls-guarded";
    private static final String SECRET = "ls-secret-never-printed";
    private static TargetCore core;
    private static IscsiTargetServer server;
    private static String portal;

    @BeforeAll
    static void startTarget() throws Exception {
        core = new TargetCore();
        server = IscsiTargetServer.builder(core)
                .export(port(OPEN, 1, 2), ChapPolicy.NONE, "open")
                .export(port(GUARDED, 2, 1), new ChapPolicy(ChapSecret.of("alice", SECRET), null), "guarded")
                .portal(new InetSocketAddress("127.0.0.1", 0))
                .portal(new InetSocketAddress("127.0.0.1", 0))
                .build();
        server.start();
        portal = "iscsi://127.0.0.1:" + server.boundAddresses().get(1).getPort();
    }

    private static TargetPort port(String iqn, int tpgt, int luns) {
        ScsiTarget t = core.addTarget(iqn);
        TargetPort p = core.addPort(t, tpgt, 5);
        for (int l = 0; l < luns; l++) {
            p.addLun(l, core.addDevice(iqn + l, new RamBackstore(4L << 20, 512), new DeviceAttributes()));
        }
        p.demoMode(true, false);
        return p;
    }

    @AfterAll
    static void stopTarget() {
        server.close();
        core.close();
    }

    @Test
    void listsBothTargetsWithBothPortalsAndTheirLunsWithoutPrintingTheSecret() {
        CliRun r = run("ls", portal + ",user=alice,secret=" + SECRET);
        assertThat(r.status()).as(r.err()).isZero();
        for (InetSocketAddress a : server.boundAddresses()) {
            assertThat(r.out()).contains("  portal 127.0.0.1:" + a.getPort() + ",1\n")
                    .contains("  portal 127.0.0.1:" + a.getPort() + ",2\n");
        }
        String open = section(r.out(), OPEN);
        String guarded = section(r.out(), GUARDED);
        assertThat(open.lines().filter(l -> l.matches("  \\[\\d+:0:0:[01]]\\s+disk\\s+.*4\\.00MiB\\s+sd[a-z]+"))).hasSize(2);
        assertThat(guarded.lines().filter(l -> l.matches("  \\[\\d+:0:0:0]\\s+disk\\s+.*4\\.00MiB\\s+sd[a-z]+"))).hasSize(1);
        assertThat(r.out() + r.err()).doesNotContain(SECRET);
    }

    @Test
    void jsonListsTargetsPortalsAndDevices() throws Exception {
        CliRun r = run("ls", "--json", "-v", "iscsi:url=" + portal + ",user=alice,secret=" + SECRET);
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode tree = Json.mapper().readTree(r.out());
        assertThat(tree.get("portal").asText()).isEqualTo(portal);
        JsonNode targets = tree.get("targets");
        assertThat(targets).hasSize(2);
        for (JsonNode t : targets) {
            assertThat(t.get("portals")).hasSize(2);
            int luns = t.get("name").asText().equals(OPEN) ? 2 : 1;
            assertThat(t.get("devices")).hasSize(luns);
            assertThat(t.at("/devices/0/detail/host_tagset").asBoolean()).isTrue();   // an iSCSI session's window
            assertThat(t.has("error")).isFalse();
        }
        assertThat(r.out()).doesNotContain(SECRET);
    }

    @Test
    void aRefusedTargetLoginIsOneLineAndStatus1WhileTheOtherTargetIsListed() throws Exception {
        CliRun r = run("ls", portal + ",user=alice,secret=wrong-secret-77");
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err().strip()).startsWith("hostwide ls: login to " + GUARDED)
                .contains("AUTHENTICATION_FAILURE (0x02/0x01)").doesNotContain("\n");
        assertThat(section(r.out(), OPEN)).contains(":0:0:1]");
        assertThat(r.out() + r.err()).doesNotContain("wrong-secret-77").doesNotContain("Exception");

        CliRun json = run("ls", "--json", portal + ",user=alice,secret=wrong-secret-77");
        assertThat(json.status()).isEqualTo(1);
        JsonNode targets = Json.mapper().readTree(json.out()).get("targets");
        assertThat(targets).hasSize(2);
        for (JsonNode t : targets) {
            boolean guarded = t.get("name").asText().equals(GUARDED);
            assertThat(t.has("error")).isEqualTo(guarded);
            assertThat(t.has("devices")).isEqualTo(!guarded);
            assertThat(t.get("portals")).hasSize(2);
        }
        assertThat(json.out()).contains("AUTHENTICATION_FAILURE").doesNotContain("wrong-secret-77");
    }

    @Test
    void anUnreachablePortalAndABadKnobAreOneLineErrors() throws Exception {
        int free;
        try (ServerSocket s = new ServerSocket(0)) {
            free = s.getLocalPort();
        }
        CliRun refused = run("ls", "iscsi://127.0.0.1:" + free);
        assertThat(refused.status()).isEqualTo(1);
        assertThat(refused.err()).isEqualTo("hostwide ls: cannot connect to iSCSI portal 127.0.0.1:" + free
                + ": Connection refused\n");
        CliRun refusedJson = run("ls", "--json", "iscsi://127.0.0.1:" + free);
        assertThat(refusedJson.status()).isEqualTo(1);
        JsonNode doc = Json.mapper().readTree(refusedJson.out());
        assertThat(doc.get("portal").asText()).isEqualTo("iscsi://127.0.0.1:" + free);
        assertThat(doc.get("error").asText()).contains("Connection refused");
        CliRun knob = run("ls", portal + ",colour=red");
        assertThat(knob.status()).isEqualTo(2);
        assertThat(knob.err()).startsWith("hostwide ls: iscsi: unknown knob 'colour'");
        CliRun lun = run("ls", portal + "/" + OPEN + "/0");
        assertThat(lun.status()).isEqualTo(2);
        assertThat(lun.err()).contains("without /IQN/LUN");
        CliRun scheme = run("ls", "http://127.0.0.1,secret=" + SECRET);
        assertThat(scheme.status()).isEqualTo(2);
        assertThat(scheme.err()).contains("PORTAL: expected iscsi://HOST[:PORT]").doesNotContain(SECRET);
    }

    /** The lines from "target NAME" to the next target. */
    private static String section(String out, String name) {
        int at = out.indexOf("target " + name + "\n");
        assertThat(at).as(out).isNotNegative();
        int next = out.indexOf("\ntarget ", at + 1);
        return next < 0 ? out.substring(at) : out.substring(at, next + 1);
    }
}
