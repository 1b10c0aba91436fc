package io.hostwide.iscsi.server;

import static io.hostwide.iscsi.server.ServerLoopbackTest.TARGET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostwide.iscsi.pdu.NopIn;
import io.hostwide.iscsi.pdu.NopOut;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** RFC 7143 §11.19 target pings: answered pings keep a connection, an unanswered one closes it. */
@Timeout(60) // a blocked socket read must fail the test, not hang the build
class KeepaliveTest {
    @Test
    void silentConnectionIsPingedAndClosedWhenItDoesNotAnswer() throws Exception {
        IscsiTargetServer server = DemoServer.start(b -> b.nopIn(100, 300), 0);
        try (TestInitiator i = new TestInitiator(server.boundAddresses().get(0))) {
            i.login(TARGET);
            NopIn ping = (NopIn) i.receive();
            assertThat(ping.initiatorTaskTag()).isEqualTo(-1);
            assertThat(ping.targetTransferTag()).isNotEqualTo(-1);
            i.send(new NopOut(true, 0, -1, ping.targetTransferTag(), i.cmdSn, i.expStatSn, null)); // answered
            NopIn again = (NopIn) i.receive();
            assertThat(again.targetTransferTag()).isNotEqualTo(ping.targetTransferTag());
            assertThat(again.statSn()).isEqualTo(ping.statSn()); // pings do not consume StatSN
            // not answered: the connection goes
            assertThatThrownBy(() -> {
                while (true) {
                    i.receive();
                }
            }).isInstanceOf(IOException.class);
        } finally {
            server.close();
        }
    }

    @Test
    void aConnectionThatNeverLogsInIsClosed() throws Exception {
        IscsiTargetServer server = DemoServer.start(b -> b.loginTimeout(200), 0);
        try (TestInitiator i = new TestInitiator(server.boundAddresses().get(0))) {
            assertThatThrownBy(i::receive).isInstanceOf(IOException.class); // closed without a word
        } finally {
            server.close();
        }
    }
}
