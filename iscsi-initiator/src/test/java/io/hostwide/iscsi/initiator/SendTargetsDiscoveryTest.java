package io.hostwide.iscsi.initiator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostwide.iscsi.discovery.Portal;
import io.hostwide.iscsi.login.ChapPolicy;
import io.hostwide.iscsi.login.ChapSecret;
import io.hostwide.iscsi.login.KeyValue;
import io.hostwide.iscsi.server.IscsiTargetServer;
import io.hostwide.scsi.mid.ScsiDevice;
import io.hostwide.tcm.TargetCore;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** SendTargets=All in a Discovery session (RFC 7143 §4.3, §13.3, Appendix C) against the in-process target server. */
class SendTargetsDiscoveryTest {
    private static final String A = "iqn.2026-12.io.hostwide:disc-a";
    private static final String B = "iqn.2026-12.io.hostwide:disc-b";
    private static final String DISCOVERY_SECRET = "discovery-secret-1";
    private final TargetCore core = new TargetCore();
    private IscsiTargetServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        core.close();
    }

    private TargetPort target(String iqn, int tpgt, int luns) {
        ScsiTarget t = core.addTarget(iqn);
        TargetPort port = core.addPort(t, tpgt, 5);
        for (int l = 0; l < luns; l++) {
            port.addLun(l, core.addDevice(iqn + "-" + l, new RamBackstore(4L << 20, 512), new DeviceAttributes()));
        }
        port.demoMode(true, false);
        return port;
    }

    /** Two targets (TPGT 1 with two LUNs, TPGT 2 with one), both on two portals. */
    private void startTwoTargetsOnTwoPortals(ChapPolicy discoveryChap) throws IOException {
        IscsiTargetServer.Builder b = IscsiTargetServer.builder(core)
                .export(target(A, 1, 2), ChapPolicy.NONE, "a")
                .export(target(B, 2, 1), ChapPolicy.NONE, "b")
                .discoveryChap(discoveryChap)
                .portal(new InetSocketAddress("127.0.0.1", 0))
                .portal(new InetSocketAddress("127.0.0.1", 0));
        server = b.build();
        server.start();
    }

    private String portalUrl() {
        return "url=iscsi://127.0.0.1:" + server.boundAddresses().get(0).getPort();
    }

    private List<Integer> boundPorts() {
        List<Integer> ports = new ArrayList<>();
        for (InetSocketAddress a : server.boundAddresses()) {
            ports.add(a.getPort());
        }
        return ports;
    }

    @Test
    void listsEveryTargetWithEveryPortalAndItsGroupTag() throws Exception {
        startTwoTargetsOnTwoPortals(ChapPolicy.NONE);
        List<SendTargetsDiscovery.Target> found = SendTargetsDiscovery.sendTargetsAll(
                SendTargetsDiscovery.config(portalUrl()));

        assertThat(found).extracting(SendTargetsDiscovery.Target::name).containsExactlyInAnyOrder(A, B);
        for (SendTargetsDiscovery.Target t : found) {
            int tag = t.name().equals(A) ? 1 : 2;
            assertThat(t.portals()).hasSize(2).allSatisfy(p -> {
                assertThat(p.host()).isEqualTo("127.0.0.1");
                assertThat(p.portalGroupTag()).isEqualTo(tag);
            });
            assertThat(t.portals()).extracting(Portal::port).containsExactlyInAnyOrderElementsOf(boundPorts());
        }
        // The discovery session logged out; the server drops it once its reader sees the close (asynchronously).
        long until = System.nanoTime() + 10_000_000_000L;
        while (server.sessionCount() != 0 && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        assertThat(server.sessionCount()).isZero();
    }

    @Test
    void eachDiscoveredTargetLogsInAtADiscoveredPortalAndShowsItsLuns() throws Exception {
        startTwoTargetsOnTwoPortals(ChapPolicy.NONE);
        InitiatorConfig d = SendTargetsDiscovery.config(portalUrl());
        for (SendTargetsDiscovery.Target t : SendTargetsDiscovery.sendTargetsAll(d)) {
            Portal second = t.portals().get(1);
            try (IscsiHba hba = IscsiHba.connect(SendTargetsDiscovery.forTarget(d, t.name(), second))) {
                assertThat(hba.host().devices()).extracting(ScsiDevice::lun)
                        .containsExactlyElementsOf(t.name().equals(A) ? List.of(0, 1) : List.of(0));
            }
        }
    }

    @Test
    void aLongReplyArrivesInContinuationResponses() throws Exception {
        IscsiTargetServer.Builder b = IscsiTargetServer.builder(core).portal(new InetSocketAddress("127.0.0.1", 0));
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String iqn = "iqn.2026-12.io.hostwide:a-rather-long-target-name-to-fill-the-pdus-" + i;
            names.add(iqn);
            b.export(target(iqn, 1, 1), ChapPolicy.NONE, "t" + i);
        }
        server = b.build();
        server.start();
        // 40 targets of ~90 bytes of text each do not fit one 512-byte data segment: RFC 7143 §11.11 C bit.
        InitiatorConfig d = SendTargetsDiscovery.config(portalUrl() + ",max_recv_data_segment_length=512");
        assertThat(SendTargetsDiscovery.sendTargetsAll(d)).extracting(SendTargetsDiscovery.Target::name)
                .containsExactlyInAnyOrderElementsOf(names);
    }

    @Test
    void discoveryChapIsAnsweredAndAWrongSecretIsALoginFailureWithoutTheSecret() throws Exception {
        startTwoTargetsOnTwoPortals(new ChapPolicy(ChapSecret.of("disc", DISCOVERY_SECRET), null));
        assertThat(SendTargetsDiscovery.sendTargetsAll(SendTargetsDiscovery.config(
                portalUrl() + ",user=disc,secret=" + DISCOVERY_SECRET))).hasSize(2);

        assertThatThrownBy(() -> SendTargetsDiscovery.sendTargetsAll(SendTargetsDiscovery.config(
                portalUrl() + ",user=disc,secret=wrong-secret-99")))
                .isInstanceOf(LoginException.class)
                .hasMessageContaining("discovery login at 127.0.0.1")
                .hasMessageContaining("AUTHENTICATION_FAILURE")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("wrong-secret-99"));
        assertThatThrownBy(() -> SendTargetsDiscovery.sendTargetsAll(SendTargetsDiscovery.config(portalUrl())))
                .isInstanceOf(LoginException.class);
    }

    @Test
    void anUnreachablePortalNamesItself() throws Exception {
        int free;
        try (ServerSocket s = new ServerSocket(0)) {
            free = s.getLocalPort();
        }
        assertThatThrownBy(() -> SendTargetsDiscovery.sendTargetsAll(
                SendTargetsDiscovery.config("url=iscsi://127.0.0.1:" + free)))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining("cannot connect to iSCSI portal 127.0.0.1:" + free);
    }

    @Test
    void configWantsAPortalAndAHbaWantsATarget() {
        assertThatThrownBy(() -> SendTargetsDiscovery.config("url=iscsi://h/iqn.x:y/0"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("without /IQN/LUN");
        assertThatThrownBy(() -> SendTargetsDiscovery.config("user=u,secret=pw-123456789"))
                .hasMessageContaining("url=iscsi://HOST[:PORT] is required");
        assertThatThrownBy(() -> IscsiHba.connect(SendTargetsDiscovery.config("url=iscsi://h:3261")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs iscsi://HOST[:PORT]/IQN/LUN");
        IscsiUrl p = IscsiUrl.parsePortal("iscsi://[::1]:3261/");
        assertThat(p.isPortal()).isTrue();
        assertThat(p.host()).isEqualTo("::1");
        assertThat(p).hasToString("iscsi://[::1]:3261");
        assertThat(IscsiUrl.parsePortal("iscsi://h").port()).isEqualTo(IscsiUrl.DEFAULT_PORT);
    }

    @Test
    void targetAddressForms() throws Exception {
        assertThat(SendTargetsDiscovery.targetAddress("10.0.0.1:3261,7", "w")).isEqualTo(new Portal("10.0.0.1", 3261, 7));
        assertThat(SendTargetsDiscovery.targetAddress("[fe80::1]:3260,1", "w")).isEqualTo(new Portal("fe80::1", 3260, 1));
        assertThat(SendTargetsDiscovery.targetAddress("fe80::1", "w")).isEqualTo(new Portal("fe80::1", 3260, 1));
        assertThat(SendTargetsDiscovery.targetAddress("host.example", "w")).isEqualTo(new Portal("host.example", 3260, 1));
        assertThatThrownBy(() -> SendTargetsDiscovery.targetAddress("h:99999,1", "w"))
                .isInstanceOf(IOException.class).hasMessageContaining("malformed TargetAddress 'h:99999,1'");
        assertThatThrownBy(() -> SendTargetsDiscovery.parse(List.of(new KeyValue("SendTargets", "Reject")), "w"))
                .hasMessageContaining("SendTargets=Reject");
        assertThatThrownBy(() -> SendTargetsDiscovery.parse(List.of(new KeyValue("TargetAddress", "h")), "w"))
                .hasMessageContaining("before any TargetName");
    }
}
