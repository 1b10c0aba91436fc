package io.hostwide.iscsi.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The soak's connection drop with the interleaving a loaded machine produced once ({@link SessionSoakTest} failed
 * with "R2T for a task not outstanding as a write"): at InitialR2T=Yes the target answers the write the drop
 * abandons with an R2T (RFC 7143 §11.8), and the initiator's receiver reads it before the socket closes because the
 * sender was preempted between the command and the close. Here the drop waits for that R2T before it closes, so the
 * interleaving happens every run; the initiator must take it as legal, leave it unanswered, and the session must
 * still be reinstated with every command accounted for exactly once and every block readable as written.
 */
class SoakDropTest {
    private static final long SHARED = 1024;
    private static final long OWN = 1024;

    @ParameterizedTest
    @ValueSource(ints = {0, 2}) // SessionSoakTest's InitialR2T=Yes flavours: without, and with immediate data
    @Timeout(120)
    void anR2tForTheAbandonedWriteBeforeTheCloseIsExpected(int flavour) throws Exception {
        IscsiTargetServer server = DemoServer.start(b -> b.queueDepth(SoakSession.DEPTH), 0);
        try {
            InetSocketAddress portal = server.boundAddresses().get(0);
            WriteHistory history = new WriteHistory((int) (SHARED + OWN));
            BlockLocks locks = new BlockLocks((int) (SHARED + OWN));
            List<String> errors = SoakSession.newErrorList();
            SoakSession s = new SoakSession(portal, 1, history, locks, SHARED, SHARED, OWN, errors,
                    SessionSoakTest.keys(flavour));
            s.closeAfterAbandonedR2t = true;
            s.run(() -> s.issued < 400, () -> s.issued >= 100);

            assertThat(errors).isEmpty();
            assertThat(s.abandonedR2t.getCount()).as("the R2T came before the close").isZero();
            assertThat(s.drops).isEqualTo(1);
            assertThat(s.completed.get() + s.lost).isEqualTo(s.issued);
            assertThat(s.writesAcked.get()).isPositive();
            SoakSession checker = new SoakSession(portal, 99, history, null, SHARED, 0, 0, errors);
            checker.readBack(0, SHARED + OWN);
            assertThat(errors).isEmpty();
            assertThat(checker.readsVerified.get()).isEqualTo((SHARED + OWN) / 128);
        } finally {
            server.close();
        }
    }
}
