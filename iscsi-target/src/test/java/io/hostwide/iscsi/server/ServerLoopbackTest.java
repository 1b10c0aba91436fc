package io.hostwide.iscsi.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.pdu.DataIn;
import io.hostwide.iscsi.pdu.DataOut;
import io.hostwide.iscsi.pdu.DecodeResult;
import io.hostwide.iscsi.pdu.LoginResponse;
import io.hostwide.iscsi.pdu.R2t;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.pdu.ScsiResponse;
import io.hostwide.iscsi.pdu.TextRequest;
import io.hostwide.iscsi.pdu.TextResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** End to end over loopback TCP: login, SendTargets, a solicited write and a phase-collapsed read. */
@Timeout(60) // a blocked socket read must fail the test, not hang the build
class ServerLoopbackTest {
    static final String TARGET = "iqn.2026-12.io.hostwide:target0";
    IscsiTargetServer server;

    @BeforeEach
    void start() throws Exception {
        server = DemoServer.start(0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    static ByteBuffer cdb(int... b) {
        byte[] a = new byte[16];
        for (int i = 0; i < b.length; i++) {
            a[i] = (byte) b[i];
        }
        return ByteBuffer.wrap(a);
    }

    @Test
    void discoverySendTargetsListsThePortal() throws Exception {
        try (TestInitiator i = new TestInitiator(server.boundAddresses().get(0))) {
            LoginResponse r = i.login(null);
            assertThat(r.statusClass()).isZero();
            i.send(new TextRequest(true, true, false, 0, 9, -1, i.cmdSn, i.expStatSn,
                    ByteBuffer.wrap("SendTargets=All\0".getBytes(StandardCharsets.UTF_8))));
            TextResponse t = (TextResponse) i.receive();
            byte[] a = new byte[t.data().remaining()];
            t.data().get(a);
            int port = server.boundAddresses().get(0).getPort();
            assertThat(new String(a, StandardCharsets.UTF_8))
                    .isEqualTo("TargetName=" + TARGET + "\0TargetAddress=127.0.0.1:" + port + ",1\0");
        }
    }

    /** Metrics count each login once by how it ended: a discovery login, a normal one, one for a missing target. */
    @Test
    void loginsAreCountedByOutcome() throws Exception {
        LoginCounters c = server.loginCounters();
        try (TestInitiator i = new TestInitiator(server.boundAddresses().get(0))) {
            assertThat(i.login(null).statusClass()).isZero();
        }
        try (TestInitiator i = new TestInitiator(server.boundAddresses().get(0))) {
            assertThat(i.login(TARGET).statusClass()).isZero();
        }
        try (TestInitiator i = new TestInitiator(server.boundAddresses().get(0))) {
            assertThat(i.login("iqn.2026-12.io.hostwide:nobody").statusClass()).isEqualTo(2);
        }
        // counted before the response is sent (success) or before the connection closes (failure)
        assertThat(c.discoveryLogins()).isEqualTo(1);
        assertThat(c.normalLogins()).isEqualTo(1);
        assertThat(c.failures().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(1);
        assertThat(c.failures().get("not_found") + c.failures().get("target_removed")).isEqualTo(1);
        assertThat(c.failures()).containsEntry("timeout", 0L).containsKey("authentication_failure");
    }

    /** The first command of a new I_T nexus reports the power-on unit attention (SAM-5 §5.14); clear it. */
    static void clearUnitAttention(TestInitiator i) throws Exception {
        i.send(new ScsiCommand(false, true, false, false, 1, 0, 99, 0, i.cmdSn++, i.expStatSn, cdb(0), -1, null));
        ScsiResponse ua = (ScsiResponse) i.receive();
        assertThat(ua.status()).isEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"Yes", "No"})
    void solicitedWriteThenCollapsedRead(String initialR2t) throws Exception {
        try (TestInitiator i = new TestInitiator(server.boundAddresses().get(0))) {
            LoginResponse r = i.login(TARGET, "InitialR2T=" + initialR2t, "ImmediateData=No",
                    "MaxRecvDataSegmentLength=4096");
            assertThat(r.statusClass()).isZero();
            clearUnitAttention(i);
            // WRITE(10) LBA 7, 2 blocks: F=1, no immediate data, so everything comes by R2T
            i.send(new ScsiCommand(false, true, false, true, 1, 0, 100, 1024, i.cmdSn++, i.expStatSn,
                    cdb(0x2a, 0, 0, 0, 0, 7, 0, 0, 2, 0), -1, null));
            DecodeResult d = i.receive();
            assertThat(d).isInstanceOf(R2t.class);
            R2t r2t = (R2t) d;
            assertThat(r2t.bufferOffset()).isZero();
            assertThat(r2t.desiredDataTransferLength()).isEqualTo(1024);
            byte[] data = new byte[1024];
            Arrays.fill(data, (byte) 0x5a);
            i.send(new DataOut(true, 0, 100, r2t.targetTransferTag(), i.expStatSn, 0, 0, ByteBuffer.wrap(data)));
            ScsiResponse w = (ScsiResponse) i.receive();
            assertThat(w.status()).isZero();
            assertThat(w.initiatorTaskTag()).isEqualTo(100);
            // READ(10) the same blocks: one Data-In with S=1 carrying GOOD
            i.send(new ScsiCommand(false, true, true, false, 1, 0, 101, 1024, i.cmdSn++, i.expStatSn,
                    cdb(0x28, 0, 0, 0, 0, 7, 0, 0, 2, 0), -1, null));
            DataIn in = (DataIn) i.receive();
            assertThat(in.statusPresent()).isTrue();
            assertThat(in.fin()).isTrue();
            assertThat(in.status()).isZero();
            byte[] got = new byte[in.data().remaining()];
            in.data().get(got);
            assertThat(got).isEqualTo(data);
            assertThat(in.statSn()).isEqualTo(w.statSn() + 1);
        }
    }
}
