package io.hostwide.iscsi.login;

import static io.hostwide.iscsi.login.TestEnv.INITIATOR;
import static io.hostwide.iscsi.login.TestEnv.TARGET;
import static io.hostwide.iscsi.login.TestEnv.keys;
import static io.hostwide.iscsi.login.TestEnv.req;
import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.pdu.LoginRequest;
import io.hostwide.iscsi.pdu.LoginResponse;
import io.hostwide.iscsi.spec.LoginStatus;
import java.nio.ByteBuffer;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LoginStateMachineTest {
    static void assertStatus(LoginStep step, LoginStatus status) {
        assertThat(step.response().statusClass()).as("status class").isEqualTo(status.statusClass);
        assertThat(step.response().statusDetail()).as("status detail").isEqualTo(status.statusDetail);
        assertThat(step.outcome()).isEqualTo(status == LoginStatus.SUCCESS ? step.outcome() : LoginStep.Outcome.FAILED);
    }

    @Test
    void libiscsiStyleLoginWithoutAuthentication() {
        TestEnv env = new TestEnv();
        LoginStateMachine m = env.machine();
        LoginStep s1 = m.onRequest(req(true, false, 0, 1, "InitiatorName=" + INITIATOR, "TargetName=" + TARGET,
                "SessionType=Normal", "AuthMethod=None"));
        assertStatus(s1, LoginStatus.SUCCESS);
        LoginResponse r1 = s1.response();
        assertThat(r1.transit()).isTrue();
        assertThat(r1.csg()).isZero();
        assertThat(r1.nsg()).isEqualTo(1);
        assertThat(r1.statSn()).isEqualTo(100);
        assertThat(r1.tsih()).isZero();
        assertThat(r1.initiatorTaskTag()).isEqualTo(7);
        assertThat(keys(s1)).containsEntry("AuthMethod", "None").containsEntry("TargetPortalGroupTag", "1")
                .containsEntry("TargetAlias", "disk0");

        LoginStep s2 = m.onRequest(req(true, false, 1, 3, "HeaderDigest=None", "DataDigest=None",
                "InitialR2T=Yes", "ImmediateData=Yes", "MaxBurstLength=262144", "FirstBurstLength=262144",
                "MaxRecvDataSegmentLength=262144", "MaxOutstandingR2T=1", "ErrorRecoveryLevel=0"));
        assertThat(s2.outcome()).isEqualTo(LoginStep.Outcome.FULL_FEATURE);
        assertThat(s2.response().transit()).isTrue();
        assertThat(s2.response().csg()).isEqualTo(1);
        assertThat(s2.response().nsg()).isEqualTo(3);
        assertThat(s2.response().tsih()).isEqualTo(1);
        assertThat(s2.response().statSn()).isEqualTo(101);
        assertThat(s2.response().maxCmdSn()).isEqualTo(32);
        assertThat(keys(s2)).containsEntry("MaxRecvDataSegmentLength", "262144").containsEntry("InitialR2T", "Yes")
                .containsEntry("ErrorRecoveryLevel", "0");
        assertThat(s2.session().initiatorName()).isEqualTo(INITIATOR);
        assertThat(s2.session().targetName()).isEqualTo(TARGET);
        assertThat(s2.session().parameters().initiatorMaxRecvDataSegmentLength()).isEqualTo(262144);
        assertThat(m.nextStatSn()).isEqualTo(102);
        assertThat(env.admitted).hasSize(1);
    }

    @Test
    void discoveryStraightIntoFullFeature() {
        TestEnv env = new TestEnv();
        LoginStep s = env.machine().onRequest(req(true, false, 1, 3, "InitiatorName=" + INITIATOR,
                "SessionType=Discovery", "MaxBurstLength=1", "HeaderDigest=None"));
        assertThat(s.outcome()).isEqualTo(LoginStep.Outcome.FULL_FEATURE);
        assertThat(s.session().discovery()).isTrue();
        assertThat(keys(s)).containsEntry("MaxBurstLength", "Irrelevant").doesNotContainKey("TargetPortalGroupTag");
    }

    @Test
    void failureStatuses() {
        TestEnv env = new TestEnv();
        env.withTarget(new LoginTarget("iqn.x:locked", null, 1, null, name -> name.equals("iqn.x:friend")));
        assertStatus(env.machine().onRequest(req(true, false, 0, 1, "TargetName=" + TARGET)),
                LoginStatus.MISSING_PARAMETER);
        assertStatus(env.machine().onRequest(req(true, false, 0, 1, "InitiatorName=" + INITIATOR)),
                LoginStatus.MISSING_PARAMETER);
        assertStatus(env.machine().onRequest(req(true, false, 0, 1, "InitiatorName=" + INITIATOR,
                "TargetName=iqn.nope")), LoginStatus.NOT_FOUND);
        assertStatus(env.machine().onRequest(req(true, false, 0, 1, "InitiatorName=" + INITIATOR,
                "TargetName=iqn.x:locked")), LoginStatus.AUTHORIZATION_FAILURE);
        assertStatus(env.machine().onRequest(req(true, false, 0, 1, "InitiatorName=" + INITIATOR,
                "SessionType=Weird")), LoginStatus.SESSION_TYPE_NOT_SUPPORTED);
        assertStatus(env.machine().onRequest(req(true, true, 0, 1, "InitiatorName=" + INITIATOR)),
                LoginStatus.INITIATOR_ERROR); // T and C
        assertStatus(env.machine().onRequest(req(true, false, 1, 1, "InitiatorName=" + INITIATOR)),
                LoginStatus.INITIATOR_ERROR); // NSG not beyond CSG
        assertStatus(env.machine().onRequest(req(true, false, 0, 2, "InitiatorName=" + INITIATOR)),
                LoginStatus.INITIATOR_ERROR); // reserved stage
        assertStatus(env.machine().onRequest(req(false, false, 3, 0, "InitiatorName=" + INITIATOR)),
                LoginStatus.INITIATOR_ERROR); // starts in full feature phase
        assertStatus(env.machine().onRequest(req(true, false, 0, 1, "InitiatorName=" + INITIATOR,
                "TargetName=" + TARGET, "MaxBurstLength=5")), LoginStatus.INITIATOR_ERROR);
        assertStatus(env.machine().onRequest(req(true, false, 0, 1, "InitiatorName=" + INITIATOR,
                "TargetName=" + TARGET, "ImmediateData=Yes", "ImmediateData=No")), LoginStatus.INITIATOR_ERROR);
        assertStatus(env.machine().onRequest(req(true, false, 0, 1, "garbage")), LoginStatus.INITIATOR_ERROR);
        LoginRequest v1 = new LoginRequest(true, false, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, null);
        assertStatus(env.machine().onRequest(v1), LoginStatus.UNSUPPORTED_VERSION);
        assertThat(env.admitted).isEmpty();
    }

    @Test
    void keysRepeatedAcrossRequestsFail() {
        TestEnv env = new TestEnv();
        LoginStateMachine m = env.machine();
        m.onRequest(req(true, false, 0, 1, "InitiatorName=" + INITIATOR, "TargetName=" + TARGET,
                "MaxBurstLength=65536"));
        assertStatus(m.onRequest(req(true, false, 1, 3, "MaxBurstLength=65536")), LoginStatus.INITIATOR_ERROR);
    }

    @Test
    void namesMayBeRepeatedUnchangedButNotChanged() {
        TestEnv env = new TestEnv();
        LoginStateMachine m = env.machine();
        m.onRequest(req(true, false, 0, 1, "InitiatorName=" + INITIATOR, "TargetName=" + TARGET));
        assertThat(m.onRequest(req(false, false, 1, 0, "InitiatorName=" + INITIATOR)).outcome())
                .isEqualTo(LoginStep.Outcome.CONTINUE);
        assertStatus(m.onRequest(req(true, false, 1, 3, "TargetName=iqn.other")), LoginStatus.INITIATOR_ERROR);
    }

    @Test
    void stageAndIdentityMustStayConsistent() {
        TestEnv env = new TestEnv();
        LoginStateMachine m = env.machine();
        m.onRequest(req(false, false, 0, 0, "InitiatorName=" + INITIATOR, "TargetName=" + TARGET));
        assertStatus(m.onRequest(req(true, false, 1, 3)), LoginStatus.INITIATOR_ERROR); // still in stage 0
        LoginStateMachine m2 = env.machine();
        m2.onRequest(req(false, false, 0, 0, "InitiatorName=" + INITIATOR, "TargetName=" + TARGET));
        LoginRequest otherIsid = new LoginRequest(true, false, 0, 1, 0, 0, 42, 0, 7, 0, 1, 0, null);
        assertStatus(m2.onRequest(otherIsid), LoginStatus.INITIATOR_ERROR);
    }

    @Test
    void continuedRequestTextIsJoined() { // RFC 7143 §11.12.2 C bit
        TestEnv env = new TestEnv();
        LoginStateMachine m = env.machine();
        LoginRequest part1 = new LoginRequest(false, true, 1, 0, 0, 0, 5, 0, 7, 0, 1, 0,
                ByteBuffer.wrap(("InitiatorName=" + INITIATOR + "\0TargetNa").getBytes()));
        LoginStep s1 = m.onRequest(part1);
        assertThat(s1.outcome()).isEqualTo(LoginStep.Outcome.CONTINUE);
        assertThat(s1.response().data().remaining()).isZero();
        assertThat(s1.response().transit()).isFalse();
        LoginRequest part2 = new LoginRequest(true, false, 1, 3, 0, 0, 5, 0, 7, 0, 1, 0,
                ByteBuffer.wrap(("me=" + TARGET + "\0").getBytes()));
        LoginStep s2 = m.onRequest(part2);
        assertThat(s2.outcome()).isEqualTo(LoginStep.Outcome.FULL_FEATURE);
        assertThat(s2.session().targetName()).isEqualTo(TARGET);
    }

    @Test
    void longRepliesAreContinued() { // RFC 7143 §11.13.2 C bit on the response
        TestEnv env = new TestEnv();
        LoginStateMachine m = env.machine();
        StringBuilder many = new StringBuilder();
        String[] pairs = new String[600];
        pairs[0] = "InitiatorName=" + INITIATOR;
        pairs[1] = "TargetName=" + TARGET;
        for (int i = 2; i < pairs.length; i++) {
            pairs[i] = "X-k" + i + "=v";
        }
        LoginStep s = m.onRequest(req(true, false, 1, 3, pairs));
        int rounds = 0;
        while (s.outcome() == LoginStep.Outcome.CONTINUE) {
            assertThat(s.response().data().remaining()).isLessThanOrEqualTo(8192);
            many.append(new String(bytes(s.response().data())));
            s = m.onRequest(req(!s.response().cont(), false, 1, 3));
            assertThat(++rounds).isLessThan(10);
        }
        assertThat(s.outcome()).isEqualTo(LoginStep.Outcome.FULL_FEATURE);
        assertThat(many.toString()).contains("X-k599=NotUnderstood");
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    @Test
    void addingAConnectionToAnUnknownSessionFails() {
        TestEnv env = new TestEnv();
        LoginRequest join = new LoginRequest(true, false, 1, 3, 0, 0, 5, 77, 7, 1, 1, 0,
                ByteBuffer.wrap(("InitiatorName=" + INITIATOR + "\0TargetName=" + TARGET + "\0").getBytes()));
        assertStatus(env.machine().onRequest(join), LoginStatus.SESSION_DOES_NOT_EXIST);
    }

    @Test
    void securityKeysInTheOperationalStageFail() {
        TestEnv env = new TestEnv();
        assertStatus(env.machine().onRequest(req(true, false, 1, 3, "InitiatorName=" + INITIATOR,
                "TargetName=" + TARGET, "AuthMethod=None")), LoginStatus.INITIATOR_ERROR);
    }

    @Test
    void answersAreRecordedWithoutSecrets() {
        TestEnv env = new TestEnv();
        LoginStateMachine m = env.machine();
        m.onRequest(req(true, false, 0, 1, "InitiatorName=" + INITIATOR, "TargetName=" + TARGET, "CHAP_R=0xabcdef"));
        Map<String, String> seen = new java.util.HashMap<>();
        m.seenKeys().forEach(kv -> seen.put(kv.key(), kv.toString()));
        assertThat(seen.get("CHAP_R")).doesNotContain("abcdef");
    }
}
