package io.hostwide.iscsi.server;

import io.hostwide.iscsi.pdu.LoginResponse;
import io.hostwide.iscsi.pdu.TextRequest;
import io.hostwide.iscsi.pdu.TextResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Portals opened and closed while serving (LIO's {@code tpg1/portals create|delete}): SendTargets follows them, a
 * deleted portal refuses new connections and drops the ones still logging in (LIO's iscsit_tpg_del_network_portal
 * resets its login thread), and sessions already in the full feature phase keep going, on any portal.
 */
@Timeout(60)
class LivePortalTest {
    static final String TARGET = "iqn.2026-12.io.hostwide:target0";
    IscsiTargetServer server;

    @BeforeEach
    void start() throws Exception {
        server = DemoServer.start(0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static String text(TestInitiator i, String keys) throws IOException {
        i.send(new TextRequest(true, true, false, 0, 9, -1, i.cmdSn, i.expStatSn,
                ByteBuffer.wrap((keys + "\0").getBytes(StandardCharsets.UTF_8))));
        TextResponse t = (TextResponse) i.receive();
        i.expStatSn = t.statSn() + 1;
        byte[] a = new byte[t.data().remaining()];
        t.data().get(a);
        return new String(a, StandardCharsets.UTF_8);
    }

    @Test
    void anAddedPortalServesAndADeletedOneRefusesWhileSessionsGoOn() throws Exception {
        InetSocketAddress first = server.boundAddresses().get(0);
        InetSocketAddress second = server.addPortal(new InetSocketAddress("127.0.0.1", 0));
        assertThat(second.getPort()).isNotZero().isNotEqualTo(first.getPort());
        assertThat(server.boundAddresses()).containsExactly(first, second);
        assertThat(server.addPortal(new InetSocketAddress("127.0.0.1", second.getPort())))
                .as("the same portal twice: already open").isEqualTo(second);

        try (TestInitiator onFirst = new TestInitiator(first);
             TestInitiator onSecond = new TestInitiator(second)) {
            onSecond.isid = 0x400000000002L; // a second session, not a reinstatement of the first (RFC 7143 §6.3.5)
            assertThat(onFirst.login(TARGET).statusClass()).isZero();
            LoginResponse r = onSecond.login(TARGET);
            assertThat(r.statusClass()).isZero();
            assertThat(text(onFirst, "SendTargets=")).isEqualTo("TargetName=" + TARGET
                    + "\0TargetAddress=127.0.0.1:" + first.getPort() + ",1"
                    + "\0TargetAddress=127.0.0.1:" + second.getPort() + ",1\0");

            assertThat(server.removePortal(second)).isTrue();
            assertThat(server.removePortal(second)).as("gone already").isFalse();

            assertThatThrownBy(() -> SocketChannel.open(second).close()).isInstanceOf(IOException.class);
            // the session on the deleted portal and the one on the other portal both still answer
            assertThat(text(onSecond, "SendTargets=")).isEqualTo("TargetName=" + TARGET
                    + "\0TargetAddress=127.0.0.1:" + first.getPort() + ",1\0");
            assertThat(text(onFirst, "SendTargets=")).isEqualTo("TargetName=" + TARGET
                    + "\0TargetAddress=127.0.0.1:" + first.getPort() + ",1\0");
        }
    }

    @Test
    void aConnectionStillLoggingInOnADeletedPortalIsDropped() throws Exception {
        InetSocketAddress second = server.addPortal(new InetSocketAddress("127.0.0.1", 0));
        try (SocketChannel pending = SocketChannel.open(second)) {
            pending.socket().setSoTimeout(10_000);
            server.removePortal(second);
            // accepted and dropped (EOF), or reset in the closed listener's backlog: either way, no login
            int got;
            try {
                got = pending.socket().getInputStream().read();
            } catch (IOException reset) {
                got = -1;
            }
            assertThat(got).isEqualTo(-1);
        }
    }

    @Test
    void aPortalInUseIsABindErrorAndChangesNothing() throws Exception {
        try (ServerSocket other = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            InetSocketAddress taken = new InetSocketAddress("127.0.0.1", other.getLocalPort());
            assertThatThrownBy(() -> server.addPortal(taken)).isInstanceOf(BindException.class);
            assertThat(server.boundAddresses()).hasSize(1);
        }
    }

    @Test
    void wildcardPortalsAreReportedAsTheAddressTheInitiatorReached() throws Exception {
        InetSocketAddress any = new InetSocketAddress("0.0.0.0", 3260);
        InetSocketAddress lo = new InetSocketAddress("127.0.0.1", 3260);
        InetSocketAddress other = new InetSocketAddress("127.0.0.1", 3261);
        InetSocketAddress reached = new InetSocketAddress("192.0.2.7", 3260);
        assertThat(IscsiTargetServer.reportedPortals(List.of(any, other), reached))
                .containsExactly(new InetSocketAddress("192.0.2.7", 3260), other);
        assertThat(IscsiTargetServer.reportedPortals(List.of(lo, any), new InetSocketAddress("127.0.0.1", 3260)))
                .as("the wildcard names the specific portal again: once").containsExactly(lo);
        assertThat(IscsiTargetServer.reportedPortals(List.of(any), null)).containsExactly(any);
    }

    /**
     * close() returns with the ports free: a channel closed under a thread blocked in accept() kept its socket until
     * that thread returned, so a serve restarted in the same process at once sometimes found its port in use.
     */
    @Test
    void closeFreesThePortsBeforeItReturns() throws Exception {
        InetSocketAddress a = server.boundAddresses().get(0);
        InetSocketAddress b = server.addPortal(new InetSocketAddress("127.0.0.1", 0));
        server.close();
        for (InetSocketAddress x : List.of(a, b)) {
            try (ServerSocket again = new ServerSocket()) {
                again.bind(x);
                assertThat(again.getLocalPort()).isEqualTo(x.getPort());
            }
        }
    }

    @Test
    void aServerMayStartWithoutPortalsAndGetThemLater() throws Exception {
        server.close();
        server = DemoServer.start(b -> { });
        assertThat(server.boundAddresses()).isEmpty();
        InetSocketAddress a = server.addPortal(new InetSocketAddress("127.0.0.1", 0));
        try (TestInitiator i = new TestInitiator(a)) {
            assertThat(i.login(TARGET).statusClass()).isZero();
        }
    }
}
