package io.hostwide.iscsi.server;

import static io.hostwide.iscsi.server.ServerLoopbackTest.TARGET;
import static io.hostwide.iscsi.server.ServerLoopbackTest.cdb;
import static io.hostwide.iscsi.server.ServerLoopbackTest.clearUnitAttention;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostwide.iscsi.pdu.R2t;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.pdu.ScsiResponse;
import io.hostwide.iscsi.pdu.TaskManagementRequest;
import io.hostwide.iscsi.pdu.TaskManagementResponse;
import io.hostwide.iscsi.spec.TaskManagement;
import io.hostwide.scsi.spec.SenseData;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Task Management Function Requests reach the core's task manager (RFC 7143 §11.5, SAM-5 §7): libiscsi
 * iSCSITMF.LUNResetSimpleAsync, MultipathIO.Reset, Reserve6.LUNReset/TargetWarmReset/TargetColdReset.
 */
@Timeout(60)
class TaskManagementWiringTest {
    IscsiTargetServer server;

    @BeforeEach
    void start() throws Exception {
        server = DemoServer.start(0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    TestInitiator loggedIn(long isid, String... keys) throws Exception {
        TestInitiator i = new TestInitiator(server.boundAddresses().get(0));
        i.isid = isid;
        i.login(TARGET, keys);
        clearUnitAttention(i);
        return i;
    }

    static ScsiResponse command(TestInitiator i, int itt, ByteBuffer cdb) throws IOException {
        i.send(new ScsiCommand(false, true, false, false, 1, 0, itt, 0, i.cmdSn++, i.expStatSn, cdb, -1, null));
        ScsiResponse r = (ScsiResponse) i.receive();
        assertThat(r.initiatorTaskTag()).isEqualTo(itt);
        return r;
    }

    /** The sense data of a CHECK CONDITION response: the data segment is SenseLength (2 bytes) + sense. */
    static int ascAscq(ScsiResponse r) {
        assertThat(r.status()).isEqualTo(2);
        ByteBuffer d = r.data().duplicate();
        byte[] sense = new byte[d.getShort() & 0xffff];
        d.get(sense);
        assertThat(SenseData.senseKey(sense)).isEqualTo(6); // UNIT ATTENTION
        return SenseData.ascAscq(sense);
    }

    @Test
    void lunResetEndsAHeldWriteSilentlyReleasesReserve6AndEveryNexusSees29h03h() throws Exception {
        try (TestInitiator a = loggedIn(0x400000000011L, "InitialR2T=Yes", "ImmediateData=No");
             TestInitiator b = loggedIn(0x400000000012L)) {
            assertThat(command(a, 1, cdb(0x16, 0, 0, 0, 0, 0)).status()).isZero(); // RESERVE(6)
            assertThat(command(b, 1, cdb(0x16, 0, 0, 0, 0, 0)).status()).isEqualTo(0x18); // RESERVATION CONFLICT
            a.send(new ScsiCommand(false, true, false, true, 1, 0, 2, 512, a.cmdSn++, a.expStatSn,
                    cdb(0x2a, 0, 0, 0, 0, 1, 0, 0, 1, 0), -1, null));
            assertThat(a.receive()).isInstanceOf(R2t.class); // the write waits for its Data-Out
            a.send(new TaskManagementRequest(true, TaskManagement.LOGICAL_UNIT_RESET, 0, 3, -1, a.cmdSn,
                    a.expStatSn, 0, 0));
            TaskManagementResponse tmf = (TaskManagementResponse) a.receive(); // no response for ITT 2 before it
            assertThat(tmf.initiatorTaskTag()).isEqualTo(3);
            assertThat(tmf.response()).isEqualTo(TaskManagement.FUNCTION_COMPLETE);
            // SAM-5 §6.3.3: BUS DEVICE RESET FUNCTION OCCURRED for every nexus of the LU, the requester's too
            assertThat(ascAscq(command(a, 4, cdb(0)))).isEqualTo(0x2903);
            assertThat(ascAscq(command(b, 2, cdb(0)))).isEqualTo(0x2903);
            // SPC-2 §5.5.1: the reset released the RESERVE(6) of nexus a
            assertThat(command(b, 3, cdb(0x16, 0, 0, 0, 0, 0)).status()).isZero();
            assertThat(command(b, 4, cdb(0x17, 0, 0, 0, 0, 0)).status()).isZero(); // RELEASE(6)
        }
    }

    @Test
    void warmResetReports29h02hAndColdResetAnswersThenClosesEveryConnection() throws Exception {
        try (TestInitiator a = loggedIn(0x400000000021L); TestInitiator b = loggedIn(0x400000000022L)) {
            a.send(new TaskManagementRequest(true, TaskManagement.TARGET_WARM_RESET, 0, 5, -1, a.cmdSn,
                    a.expStatSn, 0, 0));
            assertThat(((TaskManagementResponse) a.receive()).response()).isEqualTo(TaskManagement.FUNCTION_COMPLETE);
            assertThat(ascAscq(command(b, 1, cdb(0)))).isEqualTo(0x2902); // SCSI BUS RESET OCCURRED
            a.send(new TaskManagementRequest(true, TaskManagement.TARGET_COLD_RESET, 0, 6, -1, a.cmdSn,
                    a.expStatSn, 0, 0));
            assertThat(((TaskManagementResponse) a.receive()).response()).isEqualTo(TaskManagement.FUNCTION_COMPLETE);
            // RFC 7143 §11.5.1: after a cold reset the target drops all its connections
            assertThatThrownBy(a::receive).isInstanceOf(IOException.class);
            assertThatThrownBy(b::receive).isInstanceOf(IOException.class);
        }
        try (TestInitiator c = new TestInitiator(server.boundAddresses().get(0))) {
            c.isid = 0x400000000021L; // the same initiator port logs in again: the cold reset was a power on
            c.login(TARGET);
            assertThat(ascAscq(command(c, 1, cdb(0)))).isEqualTo(0x2900);
        }
    }

    @Test
    void reassignIsNotSupportedAtErl0AndUnknownFunctionsAreRejected() throws Exception {
        try (TestInitiator i = loggedIn(0x400000000031L)) {
            i.send(new TaskManagementRequest(true, TaskManagement.TASK_REASSIGN, 0, 41, 7, i.cmdSn, i.expStatSn, 0,
                    0));
            assertThat(((TaskManagementResponse) i.receive()).response())
                    .isEqualTo(TaskManagement.TASK_ALLEGIANCE_REASSIGNMENT_NOT_SUPPORTED);
            i.send(new TaskManagementRequest(true, 0x1f, 0, 42, 7, i.cmdSn, i.expStatSn, 0, 0));
            assertThat(((TaskManagementResponse) i.receive()).response())
                    .isEqualTo(TaskManagement.FUNCTION_REJECTED);
            i.send(new TaskManagementRequest(true, TaskManagement.ABORT_TASK, 0, 43, 99, i.cmdSn, i.expStatSn, 0,
                    0));
            assertThat(((TaskManagementResponse) i.receive()).response())
                    .isEqualTo(TaskManagement.TASK_DOES_NOT_EXIST);
        }
    }
}
