package io.hostwide.iscsi.server;

import static io.hostwide.iscsi.server.ServerLoopbackTest.TARGET;
import static io.hostwide.iscsi.server.ServerLoopbackTest.cdb;
import static io.hostwide.iscsi.server.ServerLoopbackTest.clearUnitAttention;
import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.pdu.DataIn;
import io.hostwide.iscsi.pdu.DecodeResult;
import io.hostwide.iscsi.pdu.Reject;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.pdu.TextRequest;
import io.hostwide.iscsi.pdu.TextResponse;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.RejectReason;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Text Requests in the full feature phase beyond SendTargets (RFC 7143 §6.2, §6.6, §11.10, §13): a declared
 * MaxRecvDataSegmentLength takes effect, vendor and unknown keys are NotUnderstood, login-only keys are a protocol
 * error (Reject PDU), keys irrelevant to a discovery session are Irrelevant there, and request text spans PDUs with
 * the C bit and the Target Transfer Tag.
 */
@Timeout(60)
class FfpTextTest {
    private IscsiTargetServer server;

    @BeforeEach
    void start() throws Exception {
        server = DemoServer.start(0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private TestInitiator loggedIn(String target) throws Exception {
        TestInitiator i = new TestInitiator(server.boundAddresses().get(0));
        i.login(target, "MaxRecvDataSegmentLength=65536");
        if (target != null) {
            clearUnitAttention(i);
        }
        return i;
    }

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.replace('|', '\0').getBytes(StandardCharsets.UTF_8));
    }

    private static String text(TextResponse r) {
        return StandardCharsets.UTF_8.decode(r.data().duplicate()).toString().replace('\0', '|');
    }

    private static DecodeResult ask(TestInitiator i, int itt, int ttt, boolean fin, boolean cont, String keys)
            throws Exception {
        i.send(new TextRequest(true, fin, cont, 0, itt, ttt, i.cmdSn, i.expStatSn, text(keys)));
        return i.receive();
    }

    @Test
    void aDeclaredMaxRecvDataSegmentLengthShapesTheDataInThatFollows() throws Exception {
        try (TestInitiator i = loggedIn(TARGET)) {
            TextResponse r = (TextResponse) ask(i, 60, Codes.RESERVED_TAG, true, false,
                    "MaxRecvDataSegmentLength=4096|X-io.example.Flavour=mint|X#Public=1|NoSuchKey=3|");
            assertThat(r.fin()).isTrue();
            assertThat(r.targetTransferTag()).isEqualTo(Codes.RESERVED_TAG);
            assertThat(text(r)).isEqualTo("X-io.example.Flavour=NotUnderstood|X#Public=NotUnderstood|"
                    + "NoSuchKey=NotUnderstood|");
            i.send(new ScsiCommand(false, true, true, false, 1, 0, 61, 16384, i.cmdSn++, i.expStatSn,
                    cdb(0x28, 0, 0, 0, 0, 0, 0, 0, 32, 0), -1, null));
            for (int n = 0; n < 4; n++) { // 16 KiB in segments of at most 4096 now
                DataIn in = (DataIn) i.receive();
                assertThat(in.data().remaining()).isEqualTo(4096);
                assertThat(in.statusPresent()).isEqualTo(n == 3);
            }
            TextResponse bad = (TextResponse) ask(i, 62, Codes.RESERVED_TAG, true, false,
                    "MaxRecvDataSegmentLength=100|");
            assertThat(text(bad)).isEqualTo("MaxRecvDataSegmentLength=Reject|"); // below 512
        }
    }

    @Test
    void loginOnlyKeysAreAProtocolErrorAndTheSessionGoesOn() throws Exception {
        try (TestInitiator i = loggedIn(TARGET)) {
            for (String key : new String[] {"InitialR2T=No|", "HeaderDigest=CRC32C|", "TargetAlias=x|",
                "CHAP_A=5|", "MaxBurstLength=4096|SendTargets=|"}) {
                Reject r = (Reject) ask(i, 63, Codes.RESERVED_TAG, true, false, key);
                assertThat(r.reason()).as(key).isEqualTo(RejectReason.PROTOCOL_ERROR.code);
            }
            TextResponse ok = (TextResponse) ask(i, 64, Codes.RESERVED_TAG, true, false, "SendTargets=|");
            assertThat(text(ok)).startsWith("TargetName=" + TARGET);
        }
    }

    @Test
    void keysIrrelevantToDiscoveryAreAnsweredIrrelevantInADiscoverySession() throws Exception {
        try (TestInitiator i = loggedIn(null)) {
            TextResponse r = (TextResponse) ask(i, 65, Codes.RESERVED_TAG, true, false,
                    "MaxBurstLength=4096|ImmediateData=No|InitiatorAlias=lab|");
            assertThat(text(r)).isEqualTo("MaxBurstLength=Irrelevant|ImmediateData=Irrelevant|");
            Reject e = (Reject) ask(i, 66, Codes.RESERVED_TAG, true, false, "ErrorRecoveryLevel=1|");
            assertThat(e.reason()).isEqualTo(RejectReason.PROTOCOL_ERROR.code); // not "Irrelevant when Discovery"
        }
    }

    @Test
    void requestTextSpansPdusWithTheCBitAndTheTargetTransferTag() throws Exception {
        try (TestInitiator i = loggedIn(TARGET)) {
            TextResponse ack = (TextResponse) ask(i, 67, Codes.RESERVED_TAG, false, true, "X-a=1|X-b=");
            assertThat(ack.data().remaining()).isZero(); // §11.10.2: an empty response asks for the rest
            assertThat(ack.fin()).isFalse();
            assertThat(ack.targetTransferTag()).isNotEqualTo(Codes.RESERVED_TAG);
            TextResponse r = (TextResponse) ask(i, 67, ack.targetTransferTag(), true, false, "2|");
            assertThat(text(r)).isEqualTo("X-a=NotUnderstood|X-b=NotUnderstood|");
            assertThat(r.fin()).isTrue();

            // a continuation carrying a TTT we never gave is rejected and the exchange reset
            TextResponse again = (TextResponse) ask(i, 68, Codes.RESERVED_TAG, false, true, "X-c=");
            Reject wrong = (Reject) ask(i, 68, again.targetTransferTag() + 1, true, false, "3|");
            assertThat(wrong.reason()).isEqualTo(RejectReason.INVALID_PDU_FIELD.code);
            Reject both = (Reject) ask(i, 69, Codes.RESERVED_TAG, true, true, "X-d=4|"); // C with F
            assertThat(both.reason()).isEqualTo(RejectReason.PROTOCOL_ERROR.code);
            TextResponse fresh = (TextResponse) ask(i, 70, Codes.RESERVED_TAG, true, false, "X-e=5|");
            assertThat(text(fresh)).isEqualTo("X-e=NotUnderstood|"); // nothing of the reset exchange left
        }
    }
}
