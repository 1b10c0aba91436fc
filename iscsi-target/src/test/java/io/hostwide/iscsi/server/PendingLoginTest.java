package io.hostwide.iscsi.server;

import static io.hostwide.iscsi.server.ServerLoopbackTest.TARGET;
import static io.hostwide.iscsi.server.ServerSessionTest.awaitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.pdu.LoginResponse;
import io.hostwide.iscsi.pdu.NopIn;
import io.hostwide.iscsi.pdu.NopOut;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 12 item 2, over TCP: connections that never log in are capped overall and per source address (the one over
 * the cap is closed at once, a log line says so, a normal login from elsewhere still works), cost two small buffers
 * until they log in, and give everything back when they close. Sources 127.0.0.2 and up are distinct loopback
 * addresses on Linux.
 */
@Timeout(60)
class PendingLoginTest {
    private IscsiTargetServer server;
    private InetSocketAddress portal;
    private final List<TestInitiator> open = new ArrayList<>();
    private final List<String> logged = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public synchronized void publish(LogRecord r) {
            logged.add(r.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void start() throws Exception {
        LoginGate.LOG.addHandler(capture);
        server = DemoServer.start(b -> b.pendingLogins(4, 2), 0);
        portal = server.boundAddresses().get(0);
    }

    @AfterEach
    void stop() throws IOException {
        LoginGate.LOG.removeHandler(capture);
        for (TestInitiator i : open) {
            i.close();
        }
        server.close();
    }

    /** A connection from {@code source} that sends nothing, once the server counts it as logging in. */
    private TestInitiator idle(String source) throws Exception {
        IscsiTargetServer.ConnectionCounts before = server.connectionCounts();
        TestInitiator i = new TestInitiator(portal, source);
        open.add(i);
        awaitUntil("the connection from " + source + " counted and started", () -> {
            IscsiTargetServer.ConnectionCounts now = server.connectionCounts();
            return now.pendingLogins() == before.pendingLogins() + 1 && now.open() == before.open() + 1;
        });
        return i;
    }

    /** Reads until the server closes {@code i}: end of stream or a reset, never data (and not 5 s of silence). */
    private static void assertClosedByServer(TestInitiator i) throws IOException {
        int n;
        try {
            n = i.ch.socket().getInputStream().read(); // SO_TIMEOUT 5 s: a connection left open fails here
        } catch (java.net.SocketTimeoutException open) {
            throw new AssertionError("the server kept the connection open", open);
        } catch (IOException reset) {
            n = -1;
        }
        assertThat(n).as("the server closed the connection without a word").isEqualTo(-1);
    }

    @Test
    void oneAddressCannotHoldMoreThanItsShareAndOthersStillLogIn() throws Exception {
        idle("127.0.0.2");
        idle("127.0.0.2");
        TestInitiator third = new TestInitiator(portal, "127.0.0.2");
        open.add(third);
        assertClosedByServer(third);
        IscsiTargetServer.ConnectionCounts counts = server.connectionCounts();
        assertThat(counts.refusedPerAddress()).isEqualTo(1);
        assertThat(counts.refusedOverall()).isZero();
        assertThat(counts.pendingLogins()).isEqualTo(2);
        synchronized (capture) {
            assertThat(logged).singleElement().asString().contains("refused 1 new connection ")
                    .contains("127.0.0.2");
        }
        try (TestInitiator normal = new TestInitiator(portal, "127.0.0.1")) {
            LoginResponse r = normal.login(TARGET);
            assertThat(r.statusClass()).isZero();
            assertPingAnswered(normal);
        }
    }

    @Test
    void theOverallCapRefusesEveryAddressUntilAPlaceIsFree() throws Exception {
        TestInitiator first = idle("127.0.0.2");
        idle("127.0.0.2");
        idle("127.0.0.3");
        idle("127.0.0.3");
        TestInitiator refused = new TestInitiator(portal, "127.0.0.1");
        open.add(refused);
        assertClosedByServer(refused);
        assertThat(server.connectionCounts().refusedOverall()).isEqualTo(1);
        first.close();
        awaitUntil("the closed connection's place given back", () -> server.connectionCounts().pendingLogins() == 3);
        try (TestInitiator normal = new TestInitiator(portal, "127.0.0.1")) {
            assertThat(normal.login(TARGET).statusClass()).isZero();
            awaitUntil("the logged-in connection's place given back",
                    () -> server.connectionCounts().pendingLogins() == 3);
            assertPingAnswered(normal);
        }
    }

    @Test
    void beforeLoginAConnectionHoldsTwoSmallBuffersAndFullSizeOnesAfter() throws Exception {
        idle("127.0.0.2");
        Connection c = server.openConnections().get(0);
        assertThat(c.recvCapacity()).isEqualTo(Connection.LOGIN_BUFFER).isLessThanOrEqualTo(16 * 1024);
        assertThat(c.sendCapacity()).isEqualTo(Connection.LOGIN_BUFFER);
        open.get(0).close();
        awaitUntil("closed", () -> server.openConnections().isEmpty());
        try (TestInitiator normal = new TestInitiator(portal, "127.0.0.1")) {
            normal.login(TARGET);
            awaitUntil("in the full feature phase", () -> server.openConnections().size() == 1
                    && server.connectionCounts().pendingLogins() == 0);
            Connection logged = server.openConnections().get(0);
            assertPingAnswered(normal); // the reader has handed over: the buffers are final now
            assertThat(logged.recvCapacity()).isEqualTo(server.recvPool.size());
            assertThat(logged.sendCapacity()).isEqualTo(server.sendPool.size());
            assertThat(server.recvPool.size()).isGreaterThan(256 * 1024); // the negotiated 256 KiB segments fit
        }
    }

    @Test
    void aFullSizeLoginPduFitsTheSmallBuffer() throws Exception {
        // RFC 7143 §13.12: a login PDU may carry 8192 bytes of data; fill it with keys the target does not know
        List<String> keys = new ArrayList<>();
        int length = "InitiatorName=iqn.2026-12.io.hostwide:test\0TargetName=\0".length() + TARGET.length();
        for (int k = 0; length + 250 < 8192; k++) {
            String key = "X-io.hostwide.pad" + k + "=" + "p".repeat(220);
            keys.add(key);
            length += key.length() + 1;
        }
        assertThat(length).isBetween(8000, 8192); // within 250 bytes of the most a login PDU may carry
        try (TestInitiator i = new TestInitiator(portal, "127.0.0.1")) {
            LoginResponse r = i.login(TARGET, keys.toArray(String[]::new));
            assertThat(r.statusClass()).isZero();
            assertPingAnswered(i);
        }
    }

    @Test
    void bytesSentRightAfterTheLastLoginRequestAreNotLostInTheHandOver() throws Exception {
        try (TestInitiator i = new TestInitiator(portal, "127.0.0.1")) {
            ByteBuffer both = ByteBuffer.allocate(64 * 1024);
            both.put(i.encoded(i.loginRequest(TARGET)));
            both.put(i.encoded(new NopOut(true, 0, 77, -1, i.cmdSn, 0, null)));
            i.ch.write(both.flip()); // one write: the NOP-Out is in the login thread's buffer with the login
            assertThat(i.loggedIn((LoginResponse) i.receive()).statusClass()).isZero();
            NopIn answer = (NopIn) i.receive();
            assertThat(answer.initiatorTaskTag()).isEqualTo(77);
        }
    }

    @Test
    void connectionsThatComeAndGoAllocateNoMoreLoginBuffersThanTheCapAllows() throws Exception {
        for (int round = 0; round < 25; round++) {
            TestInitiator a = idle("127.0.0.2");
            TestInitiator b = idle("127.0.0.3");
            try (TestInitiator c = new TestInitiator(portal, "127.0.0.4")) {
                assertThat(c.login(TARGET).statusClass()).isZero(); // hands its small buffers back
            }
            a.close();
            b.close();
            awaitUntil("all closed", () -> server.connectionCounts().open() == 0);
        }
        assertThat(server.connectionCounts().pendingLogins()).isZero();
        // two buffers per connection not yet logged in, at most 4 such connections at once: never more than 8
        assertThat(server.loginPool.created()).isLessThanOrEqualTo(8);
        assertThat(server.loginPool.pooled()).isEqualTo((int) server.loginPool.created());
    }

    private static void assertPingAnswered(TestInitiator i) throws IOException {
        i.send(new NopOut(true, 0, 0x1234, -1, i.cmdSn, i.expStatSn, null));
        NopIn in = (NopIn) i.receive();
        assertThat(in.initiatorTaskTag()).isEqualTo(0x1234);
    }
}
