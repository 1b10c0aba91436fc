package io.hostwide.iscsi.server;

import static io.hostwide.iscsi.server.ServerLoopbackTest.TARGET;
import static io.hostwide.iscsi.server.ServerLoopbackTest.cdb;
import static io.hostwide.iscsi.server.ServerLoopbackTest.clearUnitAttention;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostwide.iscsi.pdu.DataIn;
import io.hostwide.iscsi.pdu.DataOut;
import io.hostwide.iscsi.pdu.LoginResponse;
import io.hostwide.iscsi.pdu.LogoutRequest;
import io.hostwide.iscsi.pdu.LogoutResponse;
import io.hostwide.iscsi.pdu.NopIn;
import io.hostwide.iscsi.pdu.NopOut;
import io.hostwide.iscsi.pdu.R2t;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.pdu.ScsiResponse;
import io.hostwide.iscsi.spec.LoginStatus;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Session-level behaviour over TCP: digests, NOP, logout, reinstatement, MC/S and connection loss at ERL 0. */
@Timeout(60) // a blocked socket read must fail the test, not hang the build
class ServerSessionTest {
    IscsiTargetServer server;

    @BeforeEach
    void start() throws Exception {
        server = DemoServer.start(0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    TestInitiator connect() throws IOException {
        return new TestInitiator(server.boundAddresses().get(0));
    }

    static void awaitSessions(IscsiTargetServer s, int n) throws InterruptedException {
        awaitUntil(n + " sessions", () -> s.sessionCount() == n);
    }

    /** Polls {@code done} until it holds (a positive signal), failing after 10 s. */
    static void awaitUntil(String what, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waiting for " + what).isNegative();
            Thread.sleep(5);
        }
    }

    @Test
    void crc32cDigestsOnBothDirections() throws Exception {
        try (TestInitiator i = connect()) {
            LoginResponse r = i.login(TARGET, "HeaderDigest=CRC32C,None", "DataDigest=CRC32C,None",
                    "ImmediateData=Yes", "InitialR2T=No");
            assertThat(r.statusClass()).isZero();
            clearUnitAttention(i);
            byte[] data = new byte[1536];
            Arrays.fill(data, (byte) 7);
            // 3 blocks as immediate data: exercises the data digest both ways
            i.send(new ScsiCommand(false, true, false, true, 1, 0, 5, 1536, i.cmdSn++, i.expStatSn,
                    cdb(0x2a, 0, 0, 0, 0, 1, 0, 0, 3, 0), -1, ByteBuffer.wrap(data)));
            assertThat(((ScsiResponse) i.receive()).status()).isZero();
            i.send(new ScsiCommand(false, true, true, false, 1, 0, 6, 1536, i.cmdSn++, i.expStatSn,
                    cdb(0x28, 0, 0, 0, 0, 1, 0, 0, 3, 0), -1, null));
            DataIn in = (DataIn) i.receive();
            byte[] got = new byte[in.data().remaining()];
            in.data().get(got);
            assertThat(got).isEqualTo(data);
        }
    }

    @Test
    void nopOutPingIsEchoedAndLogoutClosesTheSession() throws Exception {
        try (TestInitiator i = connect()) {
            i.login(TARGET);
            awaitSessions(server, 1);
            i.send(new NopOut(true, 0, 42, -1, i.cmdSn, i.expStatSn, ByteBuffer.wrap(new byte[] {1, 2, 3})));
            NopIn nop = (NopIn) i.receive();
            assertThat(nop.initiatorTaskTag()).isEqualTo(42);
            assertThat(nop.targetTransferTag()).isEqualTo(-1);
            assertThat(nop.data()).isEqualTo(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            i.send(new LogoutRequest(true, 0, 43, 0, i.cmdSn, i.expStatSn));
            LogoutResponse lr = (LogoutResponse) i.receive();
            assertThat(lr.response()).isZero();
            assertThat(lr.statSn()).isEqualTo(nop.statSn() + 1);
            awaitSessions(server, 0);
            assertThatThrownBy(i::receive).isInstanceOf(IOException.class);
        }
    }

    @Test
    void leadingLoginWithALiveIsidReinstatesTheSession() throws Exception {
        try (TestInitiator first = connect(); TestInitiator second = connect()) {
            first.login(TARGET);
            awaitSessions(server, 1);
            int oldTsih = first.tsih;
            LoginResponse r = second.login(TARGET); // same InitiatorName and ISID, TSIH 0: RFC 7143 §6.3.5
            assertThat(r.statusClass()).isZero();
            assertThat(second.tsih).isNotEqualTo(oldTsih);
            awaitSessions(server, 1);
            assertThatThrownBy(first::receive).isInstanceOf(IOException.class); // the old connection was closed
        }
    }

    @Test
    void secondConnectionJoinsTheSessionAndSharesItsWindow() throws Exception {
        try (TestInitiator a = connect(); TestInitiator b = connect()) {
            a.login(TARGET, "MaxConnections=2");
            clearUnitAttention(a);
            b.tsih = a.tsih;
            b.cid = 1;
            b.cmdSn = a.cmdSn;
            LoginResponse r = b.login(TARGET);
            assertThat(r.statusClass()).isZero();
            assertThat(r.tsih()).isEqualTo(a.tsih);
            // CmdSN is session-wide: commands alternate between the connections
            b.send(new ScsiCommand(false, true, false, false, 1, 0, 11, 0, a.cmdSn++, b.expStatSn, cdb(0), -1, null));
            assertThat(((ScsiResponse) b.receive()).status()).isZero();
            a.send(new ScsiCommand(false, true, false, false, 1, 0, 12, 0, a.cmdSn++, a.expStatSn, cdb(0), -1, null));
            ScsiResponse ra = (ScsiResponse) a.receive();
            assertThat(ra.status()).isZero();
            assertThat(ra.expCmdSn()).isEqualTo(a.cmdSn);
            awaitSessions(server, 1);
        }
    }

    @Test
    void thirdConnectionBeyondMaxConnectionsIsRefused() throws Exception {
        try (TestInitiator a = connect(); TestInitiator b = connect()) {
            a.login(TARGET); // MaxConnections stays 1
            b.tsih = a.tsih;
            b.cid = 1;
            assertThat(b.login(TARGET).statusDetail()).isEqualTo(LoginStatus.TOO_MANY_CONNECTIONS.statusDetail);
        }
    }

    @Test
    void connectionLostInTheMiddleOfAWriteBurstFreesEverythingOnce() throws Exception {
        TestInitiator i = connect();
        i.login(TARGET, "InitialR2T=Yes", "ImmediateData=No", "MaxOutstandingR2T=1", "MaxBurstLength=512");
        clearUnitAttention(i);
        for (int k = 0; k < 8; k++) { // eight writes waiting for data
            i.send(new ScsiCommand(false, true, false, true, 1, 0, 200 + k, 1024, i.cmdSn++, i.expStatSn,
                    cdb(0x2a, 0, 0, 0, 0, k * 2, 0, 0, 2, 0), -1, null));
        }
        R2t first = (R2t) i.receive();
        i.send(new DataOut(true, 0, first.initiatorTaskTag(), first.targetTransferTag(), i.expStatSn, 0, 0,
                ByteBuffer.allocate(512)));
        i.close(); // mid-burst
        awaitSessions(server, 0);
        // The server keeps serving: a new session logs in and writes.
        try (TestInitiator j = connect()) {
            j.isid = 0x400000000002L; // another initiator port: it sees the power-on condition once (SAM-5 §6.3.1)
            assertThat(j.login(TARGET).statusClass()).isZero();
            clearUnitAttention(j);
            j.send(new ScsiCommand(false, true, false, true, 1, 0, 1, 512, j.cmdSn++, j.expStatSn,
                    cdb(0x2a, 0, 0, 0, 0, 0, 0, 0, 1, 0), -1, ByteBuffer.allocate(512)));
            assertThat(((ScsiResponse) j.receive()).status()).isZero();
        }
    }

    @Test
    void commandArrivingAheadOfItsCmdSnWaitsWithItsUnsolicitedData() throws Exception {
        try (TestInitiator a = connect(); TestInitiator b = connect()) {
            a.login(TARGET, "MaxConnections=2", "InitialR2T=No", "ImmediateData=No");
            clearUnitAttention(a);
            b.tsih = a.tsih;
            b.cid = 1;
            b.login(TARGET);
            int first = a.cmdSn;
            byte[] data = new byte[512];
            Arrays.fill(data, (byte) 0x33);
            // CmdSN first+1 on B, before first arrives on A: held, and its unsolicited Data-Out parked
            b.send(new ScsiCommand(false, false, false, true, 1, 0, 21, 512, first + 1, b.expStatSn,
                    cdb(0x2a, 0, 0, 0, 0, 40, 0, 0, 1, 0), -1, null));
            b.send(new DataOut(true, 0, 21, -1, b.expStatSn, 0, 0, ByteBuffer.wrap(data)));
            // Only once the server holds the command and has parked its data does A close the gap: a fixed pause
            // could end before B's reader ran, and the command would then simply arrive in order.
            awaitUntil("B's command held with its Data-Out parked", () -> server.registry.sessions().stream()
                    .anyMatch(s -> s.holdingCommands() && s.earlyBytes() == data.length));
            a.send(new ScsiCommand(false, true, false, false, 1, 0, 22, 0, first, a.expStatSn, cdb(0), -1, null));
            assertThat(((ScsiResponse) a.receive()).status()).isZero();
            ScsiResponse w = (ScsiResponse) b.receive();
            assertThat(w.initiatorTaskTag()).isEqualTo(21);
            assertThat(w.status()).isZero();
            assertThat(w.expCmdSn()).isEqualTo(first + 2);
            a.send(new ScsiCommand(false, true, true, false, 1, 0, 23, 512, first + 2, a.expStatSn,
                    cdb(0x28, 0, 0, 0, 0, 40, 0, 0, 1, 0), -1, null));
            DataIn in = (DataIn) a.receive();
            byte[] got = new byte[in.data().remaining()];
            in.data().get(got);
            assertThat(got).isEqualTo(data);
        }
    }
}
