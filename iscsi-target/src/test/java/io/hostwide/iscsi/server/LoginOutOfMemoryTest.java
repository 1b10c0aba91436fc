package io.hostwide.iscsi.server;

import static io.hostwide.iscsi.server.ServerLoopbackTest.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.pdu.LoginResponse;
import io.hostwide.iscsi.pdu.NopIn;
import io.hostwide.iscsi.pdu.NopOut;
import io.hostwide.iscsi.spec.LoginStatus;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server out of direct memory for a new session's buffers refuses the login with "out of resources" (RFC 7143
 * §11.13.5, status 0x0302) rather than accepting it and dropping the connection; sessions already logged in keep
 * working, and a login succeeds again once memory is back.
 */
@Timeout(60)
class LoginOutOfMemoryTest {

    @Test
    void aLoginWithoutMemoryForItsBuffersIsRefusedAndOthersGoOn() throws Exception {
        AtomicBoolean full = new AtomicBoolean();
        IscsiTargetServer server = DemoServer.start(b -> b.fullSizeAllocator(n -> {
            if (full.get()) {
                throw new OutOfMemoryError("Cannot reserve " + n + " bytes of direct buffer memory (test)");
            }
            return ByteBuffer.allocateDirect(n);
        }), 0);
        try (TestInitiator first = new TestInitiator(server.boundAddresses().get(0))) {
            assertThat(first.login(TARGET).statusClass()).isZero();
            full.set(true);
            try (TestInitiator second = new TestInitiator(server.boundAddresses().get(0))) {
                second.isid = first.isid + 1;
                LoginResponse r = (LoginResponse) sendLogin(second);
                assertThat(r.statusClass()).isEqualTo(LoginStatus.OUT_OF_RESOURCES.statusClass);
                assertThat(r.statusDetail()).isEqualTo(LoginStatus.OUT_OF_RESOURCES.statusDetail);
            }
            assertPingAnswered(first);
            full.set(false);
            try (TestInitiator third = new TestInitiator(server.boundAddresses().get(0))) {
                third.isid = first.isid + 2;
                assertThat(third.login(TARGET).statusClass()).isZero();
                assertPingAnswered(third);
            }
            assertPingAnswered(first);
        } finally {
            server.close();
        }
    }

    private static Object sendLogin(TestInitiator i) throws java.io.IOException {
        i.send(i.loginRequest(TARGET));
        return i.receive();
    }

    private static void assertPingAnswered(TestInitiator i) throws java.io.IOException {
        i.send(new NopOut(true, 0, 0x4321, -1, i.cmdSn, i.expStatSn, null));
        NopIn in = (NopIn) i.receive();
        assertThat(in.initiatorTaskTag()).isEqualTo(0x4321);
    }
}
