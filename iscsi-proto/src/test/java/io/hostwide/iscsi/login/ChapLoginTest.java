package io.hostwide.iscsi.login;

import static io.hostwide.iscsi.login.TestEnv.INITIATOR;
import static io.hostwide.iscsi.login.TestEnv.TARGET;
import static io.hostwide.iscsi.login.TestEnv.keys;
import static io.hostwide.iscsi.login.TestEnv.req;
import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.spec.LoginStatus;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** CHAP logins (RFC 7143 §12.1.3) driven as an initiator would, with a fixed identifier and challenge. */
class ChapLoginTest {
    static final ChapSecret INCOMING = ChapSecret.of("alice", "secretsecret");
    static final ChapSecret OUTGOING = ChapSecret.of("target-user", "target-secret-2");

    /** Identifier 1 and challenge 00 01 02 ... so the expected responses are the ChapTest vectors. */
    static final class FixedRandom extends Random {
        @Override
        public int nextInt(int bound) {
            return 1;
        }

        @Override
        public void nextBytes(byte[] bytes) {
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) i;
            }
        }
    }

    static LoginStateMachine machine(TestEnv env) {
        return new LoginStateMachine(env, 0, new FixedRandom());
    }

    static TestEnv env(ChapPolicy p) {
        return new TestEnv().withTarget(new LoginTarget(TARGET, null, 1, p, null));
    }

    static LoginStep offerChap(LoginStateMachine m, String algorithms) {
        LoginStep s1 = m.onRequest(req(true, false, 0, 1, "InitiatorName=" + INITIATOR, "TargetName=" + TARGET,
                "AuthMethod=None,CHAP"));
        assertThat(keys(s1)).containsEntry("AuthMethod", "CHAP");
        assertThat(s1.response().transit()).isFalse(); // not out of security before CHAP completes
        return m.onRequest(req(false, false, 0, 0, "CHAP_A=" + algorithms));
    }

    @Test
    void oneWayMd5WithTheRfc1994Vector() {
        LoginStateMachine m = machine(env(new ChapPolicy(INCOMING, null)));
        LoginStep s2 = offerChap(m, "5");
        assertThat(keys(s2)).containsEntry("CHAP_A", "5").containsEntry("CHAP_I", "1")
                .containsEntry("CHAP_C", "0x000102030405060708090a0b0c0d0e0f");
        LoginStep s3 = m.onRequest(req(true, false, 0, 1, "CHAP_N=alice",
                "CHAP_R=0x226dc576c33f04ff9c3a200ffe35f442"));
        assertThat(s3.response().statusClass()).isZero();
        assertThat(s3.response().transit()).isTrue();
        assertThat(s3.response().nsg()).isEqualTo(1);
        LoginStep s4 = m.onRequest(req(true, false, 1, 3, "HeaderDigest=None"));
        assertThat(s4.outcome()).isEqualTo(LoginStep.Outcome.FULL_FEATURE);
    }

    @Test
    void sha256IsChosenWhenOfferedFirst() {
        LoginStateMachine m = machine(env(new ChapPolicy(INCOMING, null)));
        LoginStep s2 = offerChap(m, "7,5");
        assertThat(keys(s2)).containsEntry("CHAP_A", "7");
        assertThat(keys(s2).get("CHAP_C")).hasSize(2 + 64);
        byte[] r = Chap.response(7, 1, "secretsecret".getBytes(), ChapTest.seq(32));
        LoginStep s3 = m.onRequest(req(true, false, 0, 1, "CHAP_N=alice", "CHAP_R=" + Chap.encodeHex(r)));
        assertThat(s3.response().statusClass()).isZero();
    }

    @Test
    void mutualChapAnswersTheInitiatorsChallenge() {
        LoginStateMachine m = machine(env(new ChapPolicy(INCOMING, OUTGOING)));
        offerChap(m, "5");
        String ic = "0x" + HexFormat.of().formatHex(ChapTest.seq(32));
        LoginStep s3 = m.onRequest(req(true, false, 0, 1, "CHAP_N=alice",
                "CHAP_R=0x226dc576c33f04ff9c3a200ffe35f442", "CHAP_I=42", "CHAP_C=" + ic));
        Map<String, String> k = keys(s3);
        assertThat(k).containsEntry("CHAP_N", "target-user");
        // MD5(0x2a || "target-secret-2" || 00..1f), computed with Python's hashlib
        assertThat(k).containsEntry("CHAP_R", "0xfa65fb8053b9d62716ecc405264b3e21");
        assertThat(s3.response().transit()).isTrue();
    }

    @Test
    void failingSecretNameOrReflectionIsAnAuthenticationFailure() {
        LoginStateMachine wrongSecret = machine(env(new ChapPolicy(INCOMING, null)));
        offerChap(wrongSecret, "5");
        byte[] bad = Chap.response(5, 1, "wrongsecret!".getBytes(), ChapTest.seq(16));
        LoginStep s = wrongSecret.onRequest(req(true, false, 0, 1, "CHAP_N=alice", "CHAP_R=" + Chap.encodeHex(bad)));
        LoginStateMachineTest.assertStatus(s, LoginStatus.AUTHENTICATION_FAILURE);
        assertThat(s.reason()).doesNotContain("secretsecret").doesNotContain("wrongsecret");

        LoginStateMachine wrongName = machine(env(new ChapPolicy(INCOMING, null)));
        offerChap(wrongName, "5");
        LoginStateMachineTest.assertStatus(wrongName.onRequest(req(true, false, 0, 1, "CHAP_N=mallory",
                "CHAP_R=0x226dc576c33f04ff9c3a200ffe35f442")), LoginStatus.AUTHENTICATION_FAILURE);

        LoginStateMachine reflected = machine(env(new ChapPolicy(INCOMING, OUTGOING)));
        offerChap(reflected, "5");
        LoginStateMachineTest.assertStatus(reflected.onRequest(req(true, false, 0, 1, "CHAP_N=alice",
                "CHAP_R=0x226dc576c33f04ff9c3a200ffe35f442", "CHAP_I=1",
                "CHAP_C=0x000102030405060708090a0b0c0d0e0f")), LoginStatus.AUTHENTICATION_FAILURE);

        LoginStateMachine noMutualCreds = machine(env(new ChapPolicy(INCOMING, null)));
        offerChap(noMutualCreds, "5");
        LoginStateMachineTest.assertStatus(noMutualCreds.onRequest(req(true, false, 0, 1, "CHAP_N=alice",
                "CHAP_R=0x226dc576c33f04ff9c3a200ffe35f442", "CHAP_I=2", "CHAP_C=0x1234")),
                LoginStatus.AUTHENTICATION_FAILURE);
    }

    @Test
    void chapRequiredButAvoided() {
        TestEnv env = env(new ChapPolicy(INCOMING, null));
        LoginStateMachineTest.assertStatus(machine(env).onRequest(req(true, false, 0, 1, "InitiatorName=" + INITIATOR,
                "TargetName=" + TARGET, "AuthMethod=None")), LoginStatus.AUTHENTICATION_FAILURE);
        LoginStateMachineTest.assertStatus(machine(env).onRequest(req(true, false, 1, 3, "InitiatorName=" + INITIATOR,
                "TargetName=" + TARGET)), LoginStatus.AUTHENTICATION_FAILURE);
        LoginStateMachineTest.assertStatus(machine(env).onRequest(req(true, false, 0, 1, "InitiatorName=" + INITIATOR,
                "TargetName=" + TARGET)), LoginStatus.AUTHENTICATION_FAILURE);
        LoginStateMachine unsupported = machine(env);
        LoginStateMachineTest.assertStatus(offerChap(unsupported, "128,129"), LoginStatus.AUTHENTICATION_FAILURE);
        LoginStateMachine early = machine(env);
        early.onRequest(req(false, false, 0, 0, "InitiatorName=" + INITIATOR, "TargetName=" + TARGET,
                "AuthMethod=CHAP"));
        LoginStateMachineTest.assertStatus(early.onRequest(req(false, false, 0, 0, "CHAP_N=alice", "CHAP_R=0x00")),
                LoginStatus.AUTHENTICATION_FAILURE);
    }

    @Test
    void discoveryUsesItsOwnChap() {
        TestEnv env = new TestEnv();
        env.discoveryChap = new ChapPolicy(INCOMING, null);
        LoginStateMachineTest.assertStatus(machine(env).onRequest(req(true, false, 0, 1, "InitiatorName=" + INITIATOR,
                "SessionType=Discovery", "AuthMethod=None")), LoginStatus.AUTHENTICATION_FAILURE);
        LoginStateMachine m = machine(env);
        LoginStep s1 = m.onRequest(req(true, false, 0, 1, "InitiatorName=" + INITIATOR, "SessionType=Discovery",
                "AuthMethod=CHAP"));
        assertThat(keys(s1)).containsEntry("AuthMethod", "CHAP");
    }

    /**
     * LIO's per-node-ACL CHAP: an initiator with credentials of its own must prove them even when the target has
     * none, and proves its own rather than the target's; others keep the target's (here: none).
     */
    @Test
    void anInitiatorsOwnChapIsRequiredOfItAndOnlyOfIt() {
        ChapSecret own = ChapSecret.of("bob", "bobsecretbobsecret");
        TestEnv env = new TestEnv().withTarget(new LoginTarget(TARGET, null, 1, ChapPolicy.NONE, null,
                java.util.Map.of(INITIATOR, new ChapPolicy(own, null))));
        LoginStateMachineTest.assertStatus(machine(env).onRequest(req(true, false, 0, 1, "InitiatorName=" + INITIATOR,
                "TargetName=" + TARGET, "AuthMethod=None")), LoginStatus.AUTHENTICATION_FAILURE);
        LoginStep other = machine(env).onRequest(req(true, false, 0, 1, "InitiatorName=iqn.2026-12.io.hostwide:other",
                "TargetName=" + TARGET, "AuthMethod=None"));
        assertThat(other.response().statusClass()).as("another initiator: the target's policy, no CHAP").isZero();
        LoginStateMachine m = machine(env);
        offerChap(m, "5");
        LoginStep wrong = m.onRequest(req(true, false, 0, 1, "CHAP_N=alice",
                "CHAP_R=0x226dc576c33f04ff9c3a200ffe35f442"));
        assertThat(wrong.response().statusClass()).as("alice's answer is not bob's").isNotZero();
        assertThat(new LoginTarget(TARGET, null, 1, new ChapPolicy(INCOMING, null), null,
                java.util.Map.of(INITIATOR, new ChapPolicy(own, null))).chapFor("iqn.x:y").incoming())
                .isEqualTo(INCOMING);
    }
}
