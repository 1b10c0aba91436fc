package io.hostwide.iscsi.server;

import static io.hostwide.iscsi.server.ServerLoopbackTest.TARGET;
import static io.hostwide.iscsi.server.ServerLoopbackTest.cdb;
import static io.hostwide.iscsi.server.ServerLoopbackTest.clearUnitAttention;
import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.pdu.DataOut;
import io.hostwide.iscsi.pdu.LogoutRequest;
import io.hostwide.iscsi.pdu.LogoutResponse;
import io.hostwide.iscsi.pdu.R2t;
import io.hostwide.iscsi.pdu.Reject;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.pdu.ScsiResponse;
import io.hostwide.iscsi.pdu.SnackRequest;
import io.hostwide.iscsi.pdu.TaskManagementRequest;
import io.hostwide.iscsi.pdu.TaskManagementResponse;
import io.hostwide.iscsi.pdu.TextRequest;
import io.hostwide.iscsi.pdu.TextResponse;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.RejectReason;
import io.hostwide.iscsi.spec.TaskManagement;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Task management, Text continuation, Logout by CID, SNACK and duplicate ITTs in the full feature phase. */
@Timeout(60) // a blocked socket read must fail the test, not hang the build
class FfpControlTest {
    IscsiTargetServer server;

    @BeforeEach
    void start() throws Exception {
        server = DemoServer.start(0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    TestInitiator loggedIn(String... keys) throws Exception {
        TestInitiator i = new TestInitiator(server.boundAddresses().get(0));
        i.login(TARGET, keys);
        clearUnitAttention(i);
        return i;
    }

    @Test
    void abortTaskEndsAWriteWaitingForDataAndLateDataIsIgnored() throws Exception {
        try (TestInitiator i = loggedIn("InitialR2T=Yes", "ImmediateData=No")) {
            i.send(new ScsiCommand(false, true, false, true, 1, 0, 30, 512, i.cmdSn++, i.expStatSn,
                    cdb(0x2a, 0, 0, 0, 0, 3, 0, 0, 1, 0), -1, null));
            R2t r2t = (R2t) i.receive();
            i.send(new TaskManagementRequest(true, TaskManagement.ABORT_TASK, 0, 31, 30, i.cmdSn, i.expStatSn, 0, 0));
            TaskManagementResponse tmf = (TaskManagementResponse) i.receive();
            assertThat(tmf.response()).isEqualTo(TaskManagement.FUNCTION_COMPLETE);
            i.send(new DataOut(true, 0, 30, r2t.targetTransferTag(), i.expStatSn, 0, 0, ByteBuffer.allocate(512)));
            i.send(new TaskManagementRequest(true, TaskManagement.ABORT_TASK, 0, 32, 30, i.cmdSn, i.expStatSn, 0, 0));
            assertThat(((TaskManagementResponse) i.receive()).response())
                    .isEqualTo(TaskManagement.TASK_DOES_NOT_EXIST);
            // the aborted command's window slot is free again: ExpCmdSN moved on, nothing is outstanding
            i.send(new ScsiCommand(false, true, false, false, 1, 0, 33, 0, i.cmdSn++, i.expStatSn, cdb(0), -1, null));
            ScsiResponse r = (ScsiResponse) i.receive();
            assertThat(r.initiatorTaskTag()).isEqualTo(33);
            assertThat(r.maxCmdSn() - r.expCmdSn() + 1).isEqualTo(128);
        }
    }

    /**
     * A write whose Expected Data Transfer Length is beyond what any command to the LUN can carry (its MAXIMUM
     * TRANSFER LENGTH, 8 MiB by default) is refused at once with INVALID FIELD IN CDB: no R2T, no buffer of that
     * size, its unsolicited data discarded, and the session goes on.
     */
    @Test
    void aWriteLargerThanTheMaximumTransferIsRefusedBeforeItsDataIsCollected() throws Exception {
        try (TestInitiator i = loggedIn("InitialR2T=No", "ImmediateData=Yes")) {
            int blocks = 1 << 20; // 512 MiB of 512-byte blocks
            byte[] w16 = new byte[16];
            w16[0] = (byte) 0x8a;
            w16[10] = (byte) (blocks >>> 24);
            w16[11] = (byte) (blocks >>> 16);
            w16[12] = (byte) (blocks >>> 8);
            w16[13] = (byte) blocks;
            i.send(new ScsiCommand(false, false, false, true, 1, 0, 40, blocks * 512, i.cmdSn++, i.expStatSn,
                    ByteBuffer.wrap(w16), -1, ByteBuffer.allocate(4096)));
            ScsiResponse r = (ScsiResponse) i.receive();
            assertThat(r.initiatorTaskTag()).isEqualTo(40);
            assertThat(r.status()).isEqualTo(io.hostwide.scsi.spec.ScsiStatus.CHECK_CONDITION);
            ByteBuffer d = r.data().duplicate();
            byte[] sense = new byte[d.getShort() & 0xffff];
            d.get(sense);
            assertThat(io.hostwide.scsi.spec.SenseData.senseKey(sense)).isEqualTo(io.hostwide.scsi.spec.SenseKey.ILLEGAL_REQUEST);
            assertThat(io.hostwide.scsi.spec.SenseData.ascAscq(sense)).isEqualTo(io.hostwide.scsi.spec.Asc.INVALID_FIELD_IN_CDB);
            // the rest of its unsolicited data arrives late: discarded, and the next command is answered
            i.send(new DataOut(true, 0, 40, Codes.RESERVED_TAG, i.expStatSn, 0, 4096, ByteBuffer.allocate(4096)));
            i.send(new ScsiCommand(false, true, false, false, 1, 0, 41, 0, i.cmdSn++, i.expStatSn, cdb(0), -1, null));
            ScsiResponse next = (ScsiResponse) i.receive();
            assertThat(next.initiatorTaskTag()).isEqualTo(41);
            assertThat(next.status()).isZero();
            assertThat(next.maxCmdSn() - next.expCmdSn() + 1).isEqualTo(128);
        }
    }

    @Test
    void longSendTargetsReplyIsContinuedWithTheCBit() throws Exception {
        try (TestInitiator i = new TestInitiator(server.boundAddresses().get(0))) {
            i.login(null, "MaxRecvDataSegmentLength=512");
            StringBuilder keys = new StringBuilder("SendTargets=All\0");
            for (int k = 0; k < 60; k++) {
                keys.append("X-vendor.key").append(k).append("=1\0");
            }
            i.send(new TextRequest(true, true, false, 0, 50, -1, i.cmdSn, i.expStatSn,
                    ByteBuffer.wrap(keys.toString().getBytes(StandardCharsets.UTF_8))));
            StringBuilder reply = new StringBuilder();
            int pieces = 0;
            while (true) {
                TextResponse t = (TextResponse) i.receive();
                assertThat(t.data().remaining()).isLessThanOrEqualTo(512);
                reply.append(StandardCharsets.UTF_8.decode(t.data()));
                pieces++;
                if (!t.cont()) {
                    assertThat(t.fin()).isTrue();
                    assertThat(t.targetTransferTag()).isEqualTo(Codes.RESERVED_TAG);
                    break;
                }
                assertThat(t.targetTransferTag()).isNotEqualTo(Codes.RESERVED_TAG);
                i.send(new TextRequest(true, true, false, 0, 50, t.targetTransferTag(), i.cmdSn, i.expStatSn, null));
            }
            assertThat(pieces).isGreaterThan(1);
            assertThat(reply.toString()).startsWith("TargetName=" + TARGET + "\0TargetAddress=127.0.0.1:")
                    .contains("X-vendor.key59=NotUnderstood\0");
        }
    }

    @Test
    void logoutOfAnUnknownCidAndSnackAndDuplicateItt() throws Exception {
        try (TestInitiator i = loggedIn("InitialR2T=Yes", "ImmediateData=No")) {
            i.send(new LogoutRequest(true, Codes.LOGOUT_CLOSE_CONNECTION, 60, 9, i.cmdSn, i.expStatSn));
            assertThat(((LogoutResponse) i.receive()).response()).isEqualTo(Codes.LOGOUT_CID_NOT_FOUND);
            i.send(new LogoutRequest(true, Codes.LOGOUT_REMOVE_CONNECTION_FOR_RECOVERY, 61, 0, i.cmdSn, i.expStatSn));
            assertThat(((LogoutResponse) i.receive()).response()).isEqualTo(Codes.LOGOUT_RECOVERY_NOT_SUPPORTED);
            i.send(new SnackRequest(Codes.SNACK_STATUS, 0, -1, 0, i.expStatSn, 0, 0));
            assertThat(((Reject) i.receive()).reason()).isEqualTo(RejectReason.PROTOCOL_ERROR.code);
            i.send(new ScsiCommand(false, true, false, true, 1, 0, 70, 512, i.cmdSn++, i.expStatSn,
                    cdb(0x2a, 0, 0, 0, 0, 3, 0, 0, 1, 0), -1, null));
            assertThat(i.receive()).isInstanceOf(R2t.class);
            i.send(new ScsiCommand(false, true, false, false, 1, 0, 70, 0, i.cmdSn++, i.expStatSn, cdb(0), -1, null));
            assertThat(((Reject) i.receive()).reason()).isEqualTo(RejectReason.TASK_IN_PROGRESS.code);
        }
    }
}
