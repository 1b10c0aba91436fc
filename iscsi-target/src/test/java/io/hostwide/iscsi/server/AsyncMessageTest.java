package io.hostwide.iscsi.server;

import static io.hostwide.iscsi.server.ServerLoopbackTest.TARGET;
import static io.hostwide.iscsi.server.ServerLoopbackTest.cdb;
import static io.hostwide.iscsi.server.ServerLoopbackTest.clearUnitAttention;
import static io.hostwide.iscsi.server.TaskManagementWiringTest.ascAscq;
import static io.hostwide.iscsi.server.TaskManagementWiringTest.command;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostwide.iscsi.login.ChapPolicy;
import io.hostwide.iscsi.pdu.AsyncMessage;
import io.hostwide.iscsi.pdu.LogoutRequest;
import io.hostwide.iscsi.pdu.LogoutResponse;
import io.hostwide.iscsi.pdu.ScsiResponse;
import io.hostwide.iscsi.spec.AsyncEvent;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.tcm.TargetCore;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.port.ScsiTarget;
import io.hostwide.tcm.port.TargetPort;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Asynchronous Messages (RFC 7143 §11.9): a unit attention an initiator should act on at once reaches it as
 * AsyncEvent 0 with its sense data (and stays queued for the next command, SAM-5 §5.14); a graceful shutdown asks
 * every session to log out with AsyncEvent 1 before it closes.
 */
@Timeout(60)
class AsyncMessageTest {
    private TargetCore core;
    private TargetPort port;
    private Device ram0;
    private IscsiTargetServer server;

    @BeforeEach
    void start() throws Exception {
        core = new TargetCore();
        ScsiTarget t = core.addTarget(TARGET);
        port = core.addPort(t, 1, IscsiSession.PROTOCOL_ID_ISCSI);
        ram0 = core.addDevice("ram0", new RamBackstore(1L << 24, 512), new DeviceAttributes());
        port.addLun(0, ram0);
        port.demoMode(true, false);
        server = IscsiTargetServer.builder(core).export(port, ChapPolicy.NONE, "ram0")
                .portal(new InetSocketAddress("127.0.0.1", 0)).build();
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private TestInitiator loggedIn(String... keys) throws Exception {
        TestInitiator i = new TestInitiator(server.boundAddresses().get(0));
        i.login(TARGET, keys);
        clearUnitAttention(i);
        ScsiResponse ready = command(i, 39, cdb(0));
        assertThat(ready.status()).isZero();
        i.expStatSn = ready.statSn() + 1;
        return i;
    }

    private static int senseAscAscq(AsyncMessage m) {
        ByteBuffer d = m.data().duplicate();
        int length = d.getShort() & 0xffff;
        assertThat(length).isEqualTo(18);
        byte[] sense = new byte[length];
        d.get(sense);
        assertThat(sense[0] & 0x7f).isEqualTo(0x70);
        assertThat(sense[2] & 0x0f).isEqualTo(6); // UNIT ATTENTION
        return (sense[12] & 0xff) << 8 | sense[13] & 0xff;
    }

    @Test
    void aLunMapChangeIsAnnouncedOnceAndStillReportedOnTheNextCommand() throws Exception {
        try (TestInitiator i = loggedIn("HeaderDigest=CRC32C", "DataDigest=CRC32C")) {
            port.addLun(1, core.addDevice("ram1", new RamBackstore(1L << 20, 512), new DeviceAttributes()));
            AsyncMessage m = (AsyncMessage) i.receive();
            assertThat(m.asyncEvent()).isEqualTo(AsyncEvent.SCSI_ASYNC_EVENT);
            assertThat(m.initiatorTaskTag()).isEqualTo(Codes.RESERVED_TAG);
            assertThat(senseAscAscq(m)).isEqualTo(Asc.REPORTED_LUNS_DATA_HAS_CHANGED);
            assertThat(m.statSn()).isEqualTo(i.expStatSn); // an Async Message takes a StatSN
            i.expStatSn = m.statSn() + 1;
            // queued on LUN 0 and LUN 1 alike, announced once; the UA itself waits for the next command
            ScsiResponse r = command(i, 40, cdb(0));
            assertThat(r.statSn()).isEqualTo(m.statSn() + 1);
            assertThat(ascAscq(r)).isEqualTo(Asc.REPORTED_LUNS_DATA_HAS_CHANGED);
        }
    }

    @Test
    void capacityChangeIsAnnouncedForItsLunAndOtherConditionsAreNot() throws Exception {
        try (TestInitiator i = loggedIn()) {
            ram0.broadcastUnitAttention(Asc.MODE_PARAMETERS_CHANGED, null); // waits for the next command only
            ram0.broadcastUnitAttention(Asc.CAPACITY_DATA_HAS_CHANGED, null);
            AsyncMessage m = (AsyncMessage) i.receive();
            assertThat(senseAscAscq(m)).isEqualTo(Asc.CAPACITY_DATA_HAS_CHANGED);
            assertThat(LunAddress.decode(m.lun())).isZero();
            i.expStatSn = m.statSn() + 1;
            assertThat(ascAscq(command(i, 41, cdb(0)))).isEqualTo(Asc.MODE_PARAMETERS_CHANGED);
            assertThat(ascAscq(command(i, 42, cdb(0)))).isEqualTo(Asc.CAPACITY_DATA_HAS_CHANGED);
        }
    }

    @Test
    void shutdownAsksForLogoutAndEndsAsSoonAsEverySessionLoggedOut() throws Exception {
        try (TestInitiator i = loggedIn()) {
            Thread shutdown = new Thread(() -> server.shutdown(Duration.ofSeconds(45)));
            shutdown.start();
            AsyncMessage m = (AsyncMessage) i.receive();
            assertThat(m.asyncEvent()).isEqualTo(AsyncEvent.LOGOUT_REQUEST);
            assertThat(m.parameter3()).isEqualTo(45); // seconds the initiator has
            i.expStatSn = m.statSn() + 1;
            i.send(new LogoutRequest(true, Codes.LOGOUT_CLOSE_SESSION, 50, 0, i.cmdSn, i.expStatSn));
            LogoutResponse r = (LogoutResponse) i.receive();
            assertThat(r.response()).isEqualTo(Codes.LOGOUT_CLOSED_SUCCESSFULLY);
            shutdown.join(30_000); // it does not sit out the 45 s once nobody is left
            assertThat(shutdown.isAlive()).isFalse();
            assertThat(server.sessionCount()).isZero();
            assertThatThrownBy(() -> new TestInitiator(server.boundAddresses().get(0)).close())
                    .isInstanceOf(IOException.class); // no longer listening
        }
    }

    @Test
    void aSessionThatDoesNotLogOutIsClosedWhenItsTimeIsUp() throws Exception {
        try (TestInitiator i = loggedIn()) {
            Thread shutdown = new Thread(() -> server.shutdown(Duration.ofSeconds(1)));
            shutdown.start();
            AsyncMessage m = (AsyncMessage) i.receive();
            assertThat(m.asyncEvent()).isEqualTo(AsyncEvent.LOGOUT_REQUEST);
            assertThat(m.parameter3()).isEqualTo(1);
            assertThatThrownBy(i::receive).isInstanceOf(IOException.class); // closed after the second
            shutdown.join(30_000);
            assertThat(shutdown.isAlive()).isFalse();
        }
    }
}
