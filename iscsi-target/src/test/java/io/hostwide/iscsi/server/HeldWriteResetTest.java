package io.hostwide.iscsi.server;

import static io.hostwide.iscsi.server.ServerLoopbackTest.TARGET;
import static io.hostwide.iscsi.server.ServerLoopbackTest.cdb;
import static io.hostwide.iscsi.server.ServerLoopbackTest.clearUnitAttention;
import static io.hostwide.iscsi.server.TaskManagementWiringTest.ascAscq;
import static io.hostwide.iscsi.server.TaskManagementWiringTest.command;
import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.pdu.DataIn;
import io.hostwide.iscsi.pdu.DataOut;
import io.hostwide.iscsi.pdu.R2t;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.pdu.ScsiResponse;
import io.hostwide.iscsi.pdu.TaskManagementRequest;
import io.hostwide.iscsi.pdu.TaskManagementResponse;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.TaskManagement;
import io.hostwide.scsi.spec.ScsiStatus;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Timeout;

/**
 * A reset on session A while session B's WRITE waits for the Data-Out an R2T asked for: SAM-5 §7.6/§7.10 abort B's
 * task too. B gets TASK ABORTED for it (TAS = 1) before A's TMF response, its late Data-Out is discarded (the write
 * never happens), its next command reports the reset's unit attention, and then B carries on as before.
 */
@Timeout(60)
class HeldWriteResetTest {
    private IscsiTargetServer server;

    @BeforeEach
    void start() throws Exception {
        server = DemoServer.start(0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private TestInitiator loggedIn(long isid) throws Exception {
        TestInitiator i = new TestInitiator(server.boundAddresses().get(0));
        i.isid = isid;
        i.login(TARGET, "InitialR2T=Yes", "ImmediateData=No");
        clearUnitAttention(i);
        return i;
    }

    @ParameterizedTest
    @CsvSource({"5, 10499", "6, 10498", "4, 10499"}) // LU RESET 29h/03h, TARGET WARM RESET 29h/02h, CLEAR TASK SET
    void anotherSessionsResetAbortsAHeldWriteWhoseLateDataIsDiscarded(int function, int ua) throws Exception {
        try (TestInitiator a = loggedIn(0x400000000021L); TestInitiator b = loggedIn(0x400000000022L)) {
            byte[] data = new byte[1024];
            Arrays.fill(data, (byte) 0x6b);
            b.send(new ScsiCommand(false, true, false, true, 1, 0, 7, 1024, b.cmdSn++, b.expStatSn,
                    cdb(0x2a, 0, 0, 0, 0x10, 0, 0, 0, 2, 0), -1, null));
            R2t r2t = (R2t) b.receive(); // B's write now waits for its Data-Out
            b.send(new DataOut(false, 0, 7, r2t.targetTransferTag(), b.expStatSn, 0, 0,
                    ByteBuffer.wrap(data, 0, 512))); // half of it arrives before the reset

            a.send(new TaskManagementRequest(true, function, 0, 30, Codes.RESERVED_TAG, a.cmdSn, a.expStatSn, 0, 0));
            ScsiResponse aborted = (ScsiResponse) b.receive();
            assertThat(aborted.initiatorTaskTag()).isEqualTo(7);
            assertThat(aborted.status()).isEqualTo(ScsiStatus.TASK_ABORTED);
            b.expStatSn = aborted.statSn() + 1;
            TaskManagementResponse tmf = (TaskManagementResponse) a.receive();
            assertThat(tmf.response()).isEqualTo(TaskManagement.FUNCTION_COMPLETE);

            // the rest of the aborted write's data arrives late: discarded, no answer, nothing written
            b.send(new DataOut(true, 0, 7, r2t.targetTransferTag(), b.expStatSn, 1, 512,
                    ByteBuffer.wrap(data, 512, 512)));
            if (function != TaskManagement.CLEAR_TASK_SET) { // a reset leaves a unit attention; CLEAR TASK SET none
                assertThat(ascAscq(command(b, 8, cdb(0)))).isEqualTo(ua);
            }
            assertThat(command(b, 9, cdb(0)).status()).isZero();
            assertThat(read(b, 10)).containsOnly(0); // the aborted write never happened

            // B carries on: a new write to the same blocks, by R2T, and it reads back
            b.send(new ScsiCommand(false, true, false, true, 1, 0, 11, 1024, b.cmdSn++, b.expStatSn,
                    cdb(0x2a, 0, 0, 0, 0x10, 0, 0, 0, 2, 0), -1, null));
            R2t again = (R2t) b.receive();
            b.send(new DataOut(true, 0, 11, again.targetTransferTag(), b.expStatSn, 0, 0, ByteBuffer.wrap(data)));
            assertThat(((ScsiResponse) b.receive()).status()).isZero();
            assertThat(read(b, 12)).isEqualTo(data);
        }
    }

    private static byte[] read(TestInitiator i, int itt) throws Exception {
        i.send(new ScsiCommand(false, true, true, false, 1, 0, itt, 1024, i.cmdSn++, i.expStatSn,
                cdb(0x28, 0, 0, 0, 0x10, 0, 0, 0, 2, 0), -1, null));
        DataIn in = (DataIn) i.receive();
        assertThat(in.initiatorTaskTag()).isEqualTo(itt);
        assertThat(in.statusPresent()).isTrue();
        byte[] got = new byte[in.data().remaining()];
        in.data().get(got);
        return got;
    }
}
