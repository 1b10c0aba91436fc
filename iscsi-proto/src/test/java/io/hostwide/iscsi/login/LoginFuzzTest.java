package io.hostwide.iscsi.login;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.pdu.LoginRequest;
import io.hostwide.iscsi.pdu.LoginResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Random and mutated login conversations: every request gets exactly one Login Response with a defined status class
 * (0 success, 2 initiator error, 3 target error), the machine never throws, and every conversation ends (full feature
 * or failure) within a bounded number of requests once the initiator stops continuing.
 */
class LoginFuzzTest {
    static final String[] KEYS = {"InitiatorName", "TargetName", "SessionType", "AuthMethod", "CHAP_A", "CHAP_N",
        "CHAP_R", "CHAP_I", "CHAP_C", "HeaderDigest", "DataDigest", "MaxBurstLength", "FirstBurstLength",
        "MaxRecvDataSegmentLength", "InitialR2T", "ImmediateData", "ErrorRecoveryLevel", "MaxConnections",
        "DefaultTime2Wait", "DefaultTime2Retain", "MaxOutstandingR2T", "DataPDUInOrder", "DataSequenceInOrder",
        "TargetAlias", "X-junk", "IFMarker", "OFMarkInt", "SendTargets", "TaskReporting", "iSCSIProtocolLevel"};
    static final String[] VALUES = {"", "Yes", "No", "None", "CRC32C", "CHAP", "CHAP,None", "5", "7,5", "0", "1",
        "512", "262144", "16777216", "0x10", "-1", "Normal", "Discovery", TestEnv.INITIATOR, TestEnv.TARGET,
        "0x00112233", "0bAAEC", "x".repeat(300), "Reject", "Irrelevant", "é"};

    @Property(tries = 1500)
    void everyRequestGetsASaneResponse(@ForAll long seed) {
        Random r = new Random(seed);
        TestEnv env = new TestEnv();
        if (r.nextBoolean()) {
            env.withTarget(new LoginTarget(TestEnv.TARGET, null, 1,
                    new ChapPolicy(ChapSecret.of("alice", "secretsecret"), null), null));
        }
        LoginStateMachine m = new LoginStateMachine(env, r.nextInt(), new Random(seed));
        int steps = 0;
        while (!m.finished() && steps < 40) {
            LoginRequest req = request(r, steps == 0);
            LoginStep step = m.onRequest(req);
            LoginResponse resp = step.response();
            assertThat(resp).isNotNull();
            assertThat(resp.statusClass()).isIn(0, 2, 3);
            assertThat(resp.initiatorTaskTag()).isEqualTo(req.initiatorTaskTag());
            assertThat(resp.data().remaining()).isLessThanOrEqualTo(8192);
            if (step.outcome() == LoginStep.Outcome.FAILED) {
                assertThat(resp.statusClass()).isNotZero();
                assertThat(resp.transit()).isFalse();
            } else {
                assertThat(resp.statusClass()).isZero();
            }
            if (step.outcome() == LoginStep.Outcome.FULL_FEATURE) {
                assertThat(resp.nsg()).isEqualTo(3);
                assertThat(resp.tsih()).isNotZero();
            }
            steps++;
        }
        // Whatever state it is in, a finished machine answers any further request with a failure, not an exception.
        if (m.finished()) {
            assertThat(m.onRequest(request(r, false)).outcome()).isEqualTo(LoginStep.Outcome.FAILED);
        }
    }

    static LoginRequest request(Random r, boolean first) {
        StringBuilder sb = new StringBuilder();
        if (first && r.nextInt(4) != 0) {
            sb.append("InitiatorName=").append(TestEnv.INITIATOR).append('\0');
            if (r.nextInt(4) != 0) {
                sb.append("TargetName=").append(TestEnv.TARGET).append('\0');
            }
        }
        int n = r.nextInt(6);
        for (int i = 0; i < n; i++) {
            sb.append(KEYS[r.nextInt(KEYS.length)]).append('=').append(VALUES[r.nextInt(VALUES.length)]).append('\0');
        }
        byte[] text = sb.toString().getBytes(StandardCharsets.UTF_8);
        if (r.nextInt(8) == 0 && text.length > 0) {
            text[r.nextInt(text.length)] = (byte) r.nextInt(256); // mutate a byte
        }
        boolean t = r.nextInt(3) != 0;
        boolean c = r.nextInt(8) == 0;
        int csg = r.nextInt(10) == 0 ? r.nextInt(4) : r.nextInt(2);
        int nsg = r.nextInt(10) == 0 ? r.nextInt(4) : (csg == 0 ? 1 : 3);
        int vmin = r.nextInt(20) == 0 ? r.nextInt(256) : 0;
        return new LoginRequest(t, c, csg, nsg, r.nextInt(20) == 0 ? 255 : 0, vmin, 0x400001370000L,
                r.nextInt(30) == 0 ? r.nextInt(65536) : 0, r.nextInt(), 0, 1, 0, ByteBuffer.wrap(text));
    }
}
