package io.hostwide.iscsi.initiator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostwide.iscsi.login.ChapPolicy;
import io.hostwide.iscsi.login.ChapSecret;
import io.hostwide.iscsi.login.NegotiationPolicy;
import java.net.ConnectException;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** Login with and without CHAP (RFC 7143 §12.1.3), MC/S connection count, and the errors a login can end in. */
class LoginTest {
    private static final ChapPolicy ONE_WAY = new ChapPolicy(ChapSecret.of("alice", "alice-secret-12"), null);
    private static final ChapPolicy MUTUAL = new ChapPolicy(ChapSecret.of("alice", "alice-secret-12"),
            ChapSecret.of("target", "target-secret-34"));

    @Test
    void loginWithoutChapScansTheLunAndGrantsConnections() throws Exception {
        try (TestTarget t = new TestTarget(); IscsiHba hba = IscsiHba.connect(t.config().connections(3))) {
            assertThat(hba.disks()).hasSize(1);
            assertThat(hba.disk(0).capacityBytes()).isEqualTo(64L << 20);
            assertThat(hba.host().nrHwQueues()).isEqualTo(3);           // target grants MaxConnections 8
            assertThat(hba.host().hostTagset()).isTrue();
            assertThat(hba.host().canQueue()).isEqualTo(128);           // the target's CmdSN window
        }
    }

    @Test
    void singleConnectionWhenTheTargetGrantsOne() throws Exception {
        NegotiationPolicy d = NegotiationPolicy.defaults();
        NegotiationPolicy one = new NegotiationPolicy(d.maxRecvDataSegmentLength(), d.maxBurstLength(),
                d.firstBurstLength(), d.maxOutstandingR2t(), 1, d.initialR2t(), d.immediateData(),
                d.headerDigestCrc32c(), d.dataDigestCrc32c(), d.defaultTime2Wait(), d.defaultTime2Retain());
        try (TestTarget t = new TestTarget(ChapPolicy.NONE, one, 32, 8L << 20);
             IscsiHba hba = IscsiHba.connect(t.config().connections(4))) {
            assertThat(hba.host().nrHwQueues()).isEqualTo(1);
            assertThat(hba.host().canQueue()).as("cmds_max default: max(128, the window of 32)").isEqualTo(128);
        }
    }

    /**
     * can_queue above the target's window (open-iscsi's cmds_max 128 against a window of 8): the commands that find
     * the window closed are TARGET_BUSY and go out when completions open it; every write reads back.
     */
    @Test
    void aWindowSmallerThanCanQueueHoldsCommandsBackWithoutLosingAny() throws Exception {
        try (TestTarget t = new TestTarget(ChapPolicy.NONE, NegotiationPolicy.defaults(), 8, 8L << 20);
             IscsiHba hba = IscsiHba.connect(t.config().connections(2))) {
            assertThat(hba.host().canQueue()).isEqualTo(128);
            DiskIo.writeReadVerify(hba.disk(0), 0, 4096, 400, 64, 7);
            assertThat(hba.stats().windowClosed()).as("commands held back by the window").isPositive();
            assertThat(hba.reinstatements()).isZero();
        }
        try (TestTarget t = new TestTarget(ChapPolicy.NONE, NegotiationPolicy.defaults(), 256, 8L << 20);
             IscsiHba hba = IscsiHba.connect(t.config())) {
            assertThat(hba.host().canQueue()).as("a window at login above 128").isEqualTo(256);
        }
        try (TestTarget t = new TestTarget();
             IscsiHba hba = IscsiHba.connect(IscsiParams.parse("url=" + t.config().url() + ",cmds_max=16"))) {
            assertThat(hba.host().canQueue()).as("cmds_max=16").isEqualTo(16);
            assertThat(hba.host().target(0, 0).canQueue()).isEqualTo(16);
        }
        assertThatThrownBy(() -> IscsiParams.parse("url=iscsi://127.0.0.1/iqn.x:t/0,cmds_max=5000"))
                .hasMessageContaining("cmds_max must be 0..4096");
    }

    @Test
    void targetPingsAreAnsweredSoTheSessionStays() throws Exception {
        try (TestTarget t = new TestTarget()) {
            t.pingEvery(50);   // unanswered pings would close the connection after 500 ms
            try (IscsiHba hba = IscsiHba.connect(t.config().connections(2))) {
                // The target keeps one ping outstanding per connection and sends the next only once it was
                // answered (an unanswered one closes the connection), and a relogin counts as a reinstatement
                // before its connections see a ping: six pings on two connections with no reinstatement mean some
                // connection had pings answered. A positive signal, where waiting 600 ms for no closure would pass
                // on a machine too loaded to run the pinger at all.
                Await.until("six target pings", () -> hba.stats().nopInPings() >= 6);
                assertThat(hba.reinstatements()).isZero();
                assertThat(hba.session().state()).isEqualTo(InitiatorSession.State.LOGGED_IN);
            }
        }
    }

    @Test
    void oneWayChap() throws Exception {
        try (TestTarget t = new TestTarget(ONE_WAY, NegotiationPolicy.defaults(), 64, 8L << 20);
             IscsiHba hba = IscsiHba.connect(t.config().chap(ChapCredentials.of("alice", "alice-secret-12")))) {
            assertThat(hba.disks()).hasSize(1);
        }
    }

    @Test
    void mutualChapWithDigests() throws Exception {
        try (TestTarget t = new TestTarget(MUTUAL, NegotiationPolicy.defaults(), 64, 8L << 20);
             IscsiHba hba = IscsiHba.connect(t.config().chap(ChapCredentials.of("alice", "alice-secret-12"))
                     .mutualChap(ChapCredentials.of("target", "target-secret-34"))
                     .headerDigest(true).dataDigest(true))) {
            assertThat(hba.disks()).hasSize(1);
            assertThat(hba.session().live().params().headerDigest()).isTrue();
            assertThat(hba.session().live().params().dataDigest()).isTrue();
        }
    }

    @Test
    void wrongSecretNamesAuthenticationFailureAndNotTheSecret() throws Exception {
        try (TestTarget t = new TestTarget(ONE_WAY, NegotiationPolicy.defaults(), 64, 8L << 20)) {
            assertThatThrownBy(() -> IscsiHba.connect(t.config().chap(ChapCredentials.of("alice", "wrong-secret-99"))))
                    .isInstanceOf(LoginException.class)
                    .hasMessageContaining("AUTHENTICATION_FAILURE (0x02/0x01)")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("wrong-secret-99"))
                    .satisfies(e -> assertThat(((LoginException) e).permanent()).isTrue());
        }
    }

    @Test
    void noCredentialsAgainstAChapTargetIsRefused() throws Exception {
        try (TestTarget t = new TestTarget(ONE_WAY, NegotiationPolicy.defaults(), 64, 8L << 20)) {
            assertThatThrownBy(() -> IscsiHba.connect(t.config()))
                    .isInstanceOf(LoginException.class).hasMessageContaining("0x02/0x01");
        }
    }

    @Test
    void mutualChapWithAWrongTargetSecretFails() throws Exception {
        try (TestTarget t = new TestTarget(MUTUAL, NegotiationPolicy.defaults(), 64, 8L << 20)) {
            assertThatThrownBy(() -> IscsiHba.connect(t.config().chap(ChapCredentials.of("alice", "alice-secret-12"))
                    .mutualChap(ChapCredentials.of("target", "not-the-target-secret"))))
                    .isInstanceOf(LoginException.class)
                    .hasMessageContaining("target failed to authenticate")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("not-the-target-secret"));
        }
    }

    @Test
    void unknownTargetNameIsNotFound() throws Exception {
        try (TestTarget t = new TestTarget()) {
            InitiatorConfig c = new InitiatorConfig(IscsiUrl.parse("iscsi://127.0.0.1:" + t.port()
                    + "/iqn.2026-12.io.hostwide:nosuch/0"));
            assertThatThrownBy(() -> IscsiHba.connect(c))
                    .isInstanceOf(LoginException.class).hasMessageContaining("NOT_FOUND (0x02/0x03)");
        }
    }

    @Test
    void connectionRefusedNamesThePortal() throws Exception {
        int free;
        try (ServerSocket s = new ServerSocket(0)) {
            free = s.getLocalPort();
        }
        InitiatorConfig c = new InitiatorConfig(IscsiUrl.parse("iscsi://127.0.0.1:" + free + "/iqn.x:y/0"));
        assertThatThrownBy(() -> IscsiHba.connect(c))
                .isInstanceOf(ConnectException.class).hasMessageContaining("127.0.0.1:" + free);
    }

    @Test
    void missingLunIsNamed() throws Exception {
        try (TestTarget t = new TestTarget(); IscsiHba hba = IscsiHba.connect(t.config())) {
            assertThatThrownBy(() -> hba.disk(3)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("LUN 3").hasMessageContaining("[0]");
        }
    }
}
