package io.hostwide.iscsi.initiator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The {@code iscsi:} spec: URL forms, knobs, and errors that name the knob and never a secret. */
class ParamsTest {
    @Test
    void urlForms() {
        assertThat(IscsiUrl.parse("iscsi://10.0.0.1/iqn.2026-12.x:t/3"))
                .isEqualTo(new IscsiUrl("10.0.0.1", 3260, "iqn.2026-12.x:t", 3));
        assertThat(IscsiUrl.parse("iscsi://host:3261/iqn.x:y/0").port()).isEqualTo(3261);
        assertThat(IscsiUrl.parse("iscsi://[::1]:3262/iqn.x:y/1"))
                .isEqualTo(new IscsiUrl("::1", 3262, "iqn.x:y", 1));
        assertThat(IscsiUrl.parse("iscsi://[::1]/iqn.x:y/1").toString()).isEqualTo("iscsi://[::1]:3260/iqn.x:y/1");
    }

    @Test
    void badUrlsSayWhatIsWrong() {
        String[][] cases = {
            {"http://h/iqn.x:y/0", "iscsi://HOST"},
            {"iscsi://h", "missing HOST"},
            {"iscsi:///iqn.x:y/0", "missing HOST"},
            {"iscsi://h:99999/iqn.x:y/0", "PORT"},
            {"iscsi://h/iqn.x:y", "/IQN/LUN"},
            {"iscsi://h/iqn.x:y/abc", "LUN"},
            {"iscsi://h/iqn.x:y/20000", "LUN"},
            {"iscsi://u:p@h/iqn.x:y/0", "user=/secret="},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> IscsiUrl.parse(c[0])).as(c[0])
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(c[1]);
        }
    }

    @Test
    void knobsReachTheConfig() {
        InitiatorConfig c = IscsiParams.parse("url=iscsi://h/iqn.x:y/0,user=u,secret=pw-123456789,connections=4,"
                + "header_digest=1,data_digest=yes,immediate_data=0,initial_r2t=1,first_burst_length=65536,"
                + "io_timeout=5000,cmd_per_lun=16");
        assertThat(c.chap.name()).isEqualTo("u");
        assertThat(c.connections).isEqualTo(4);
        assertThat(c.headerDigest && c.dataDigest && c.initialR2t && !c.immediateData).isTrue();
        assertThat(c.firstBurstLength).isEqualTo(65536);
        assertThat(c.ioTimeoutMillis).isEqualTo(5000);
        assertThat(c.cmdPerLun).isEqualTo(16);
    }

    @Test
    void badKnobsAreNamedAndSecretsNeverShown() {
        String[][] cases = {
            {"user=u,secret=pw-123456789", "url="},
            {"url=iscsi://h/iqn.x:y/0,colour=red", "unknown knob 'colour'"},
            {"url=iscsi://h/iqn.x:y/0,user=u", "user and secret go together"},
            {"url=iscsi://h/iqn.x:y/0,secret=pw-123456789", "user and secret go together"},
            {"url=iscsi://h/iqn.x:y/0,target_user=t,target_secret=pw-123456789", "mutual CHAP"},
            {"url=iscsi://h/iqn.x:y/0,user=u,secret=pw-123456789,target_user=t,target_secret=pw-123456789",
                "must differ"},
            {"url=iscsi://h/iqn.x:y/0,connections=0", "connections"},
            {"url=iscsi://h/iqn.x:y/0,header_digest=maybe", "header_digest"},
            {"url=iscsi://h/iqn.x:y/0,first_burst_length=2097152", "first_burst_length"},
            {"url=iscsi://h/iqn.x:y/0,secret_env=HOSTWIDE_NO_SUCH_VARIABLE_42,user=u", "HOSTWIDE_NO_SUCH_VARIABLE_42"},
            {"url=iscsi://h/iqn.x:y/0,io_timeout=soon", "io_timeout"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> IscsiParams.parse(c[0])).as(c[0])
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(c[1])
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("pw-123456789"));
        }
        assertThat(ChapCredentials.of("u", "pw-123456789").toString()).doesNotContain("pw-123456789");
    }

    @Test
    void closingWhileTheTargetIsDownDoesNotWaitForTheRecoveryTimeout() throws Exception {
        TestTarget t = new TestTarget();
        IscsiHba hba = IscsiHba.connect(t.config().recoveryTimeoutMillis(120_000));
        t.close();   // the session fails and starts retrying its login
        long start = System.nanoTime();
        // The close must find the session recovering, else the test would not reach what it names.
        Await.until("the session to notice the target is gone",
                () -> hba.session().state() != InitiatorSession.State.LOGGED_IN);
        hba.close();
        assertThat(hba.session().state()).isEqualTo(InitiatorSession.State.CLOSED);
        assertThat((System.nanoTime() - start) / 1_000_000L).as("ms to close").isLessThan(20_000);
    }
}
