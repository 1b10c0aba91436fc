package io.hostwide.iscsi.server;

import static io.hostwide.iscsi.server.ServerLoopbackTest.TARGET;
import static io.hostwide.iscsi.server.ServerLoopbackTest.cdb;
import static io.hostwide.iscsi.server.ServerLoopbackTest.clearUnitAttention;
import static io.hostwide.iscsi.server.TaskManagementWiringTest.ascAscq;
import static io.hostwide.iscsi.server.TaskManagementWiringTest.command;
import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.pdu.DataIn;
import io.hostwide.iscsi.pdu.DataOut;
import io.hostwide.iscsi.pdu.DecodeResult;
import io.hostwide.iscsi.pdu.R2t;
import io.hostwide.iscsi.pdu.Reject;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.pdu.ScsiResponse;
import io.hostwide.iscsi.pdu.TaskManagementRequest;
import io.hostwide.iscsi.pdu.TaskManagementResponse;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.RejectReason;
import io.hostwide.iscsi.spec.TaskManagement;
import io.hostwide.scsi.spec.ScsiStatus;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Large Data-Out payloads read straight into the command's buffer ({@link DataOutPlacement}, issue 13): the test
 * initiator sends each PDU in pieces and waits until the server has taken each piece in, so the payload, its padding
 * and its data digest really arrive over several reads. Every written byte must read back; a damaged digest, a
 * Data-Out for an unknown or aborted task and an abort by another session while the payload is being placed must
 * each end as they do on the buffered path. No timing is asserted: the waits only order the pieces.
 */
@Timeout(60)
class DataOutPlacementTest {
    private static final int BLOCKS = 192; // a 96 KiB WRITE(10) at LBA 0x100
    private static final int LBA = 0x100;
    private static final int LENGTH = BLOCKS * 512;
    /** The first Data-Out's length: at least MIN_DIRECT, and not a multiple of 4, so its segment is padded. */
    private static final int FIRST = 20_001;
    private IscsiTargetServer server;

    @BeforeEach
    void start() throws Exception {
        server = DemoServer.start(0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"None", "CRC32C"})
    void payloadSplitOverManyReadsIsPlacedIntact(String digest) throws Exception {
        try (TestInitiator i = loggedIn(digest)) {
            Connection conn = onlyConnection();
            byte[] data = pattern(1);
            R2t r2t = write(i, 7);
            ByteBuffer first = i.encoded(dataOut(7, r2t, 0, 0, FIRST, data, false));
            ByteBuffer second = i.encoded(dataOut(7, r2t, 1, FIRST, LENGTH - FIRST, data, true));
            sendInPieces(i, conn, first, 0);
            sendInPieces(i, conn, second, 1);
            ScsiResponse w = (ScsiResponse) i.receive();
            assertThat(w.status()).isZero();
            i.expStatSn = w.statSn() + 1;
            assertThat(read(i, 8)).isEqualTo(data);
            assertThat(conn.placement().placed()).isEqualTo(2);
            assertThat(conn.placement().placedBytes()).isGreaterThan(LENGTH - 2 * 4096L);
        }
    }

    /** RFC 7143 §7.8: a damaged payload is rejected and discarded; its task still waits and takes the resend. */
    @Test
    void dataDigestErrorRejectsThePduAndTheTaskTakesItAgain() throws Exception {
        try (TestInitiator i = loggedIn("CRC32C")) {
            Connection conn = onlyConnection();
            byte[] data = pattern(2);
            R2t r2t = write(i, 7);
            ByteBuffer good = i.encoded(dataOut(7, r2t, 0, 0, LENGTH, data, true));
            ByteBuffer bad = ByteBuffer.allocate(good.remaining()).put(good.duplicate()).flip();
            int at = 48 + 4 + 30_000; // BHS, header digest, then a byte of the payload
            bad.put(at, (byte) (bad.get(at) ^ 0x10));
            sendInPieces(i, conn, bad, 0);
            DecodeResult d = i.receive();
            assertThat(d).isInstanceOf(Reject.class);
            assertThat(((Reject) d).reason()).isEqualTo(RejectReason.DATA_DIGEST_ERROR.code);
            sendInPieces(i, conn, good, 1);
            ScsiResponse w = (ScsiResponse) i.receive();
            assertThat(w.initiatorTaskTag()).isEqualTo(7);
            assertThat(w.status()).isZero();
            i.expStatSn = w.statSn() + 1;
            assertThat(read(i, 8)).isEqualTo(data);
        }
    }

    /** Late data for a task that does not exist takes the buffered path and is discarded without an answer. */
    @Test
    void dataOutForAnUnknownTaskIsDiscarded() throws Exception {
        try (TestInitiator i = loggedIn("None")) {
            Connection conn = onlyConnection();
            byte[] data = pattern(3);
            R2t r2t = write(i, 7);
            ByteBuffer stray = i.encoded(new DataOut(true, 0, 77, r2t.targetTransferTag(), i.expStatSn, 0, 0,
                    ByteBuffer.wrap(data, 0, 65_536)));
            i.ch.write(stray.slice(0, 100)); // header first: the payload is missing, but there is no task for it
            i.ch.write(stray.position(100));
            assertThat(command(i, 9, cdb(0)).status()).isZero(); // the next answer is this one: nothing for ITT 77
            assertThat(conn.placement().placed()).isZero();
            sendInPieces(i, conn, i.encoded(dataOut(7, r2t, 0, 0, LENGTH, data, true)), 0);
            assertThat(((ScsiResponse) i.receive()).status()).isZero();
            assertThat(read(i, 8)).isEqualTo(data);
        }
    }

    /** RFC 7143 §11.5.1: after ABORT TASK the task's data is not written; its late Data-Out is discarded. */
    @Test
    void dataOutAfterAbortTaskIsDiscarded() throws Exception {
        try (TestInitiator i = loggedIn("CRC32C")) {
            Connection conn = onlyConnection();
            byte[] data = pattern(4);
            R2t r2t = write(i, 7);
            i.send(new TaskManagementRequest(true, TaskManagement.ABORT_TASK, 0, 30, 7, i.cmdSn, i.expStatSn, 0, 0));
            TaskManagementResponse tmf = (TaskManagementResponse) i.receive();
            assertThat(tmf.response()).isEqualTo(TaskManagement.FUNCTION_COMPLETE);
            i.expStatSn = tmf.statSn() + 1;
            ByteBuffer late = i.encoded(dataOut(7, r2t, 0, 0, LENGTH, data, true));
            i.ch.write(late.slice(0, 100));
            i.ch.write(late.position(100));
            assertThat(command(i, 9, cdb(0)).status()).isZero();
            assertThat(conn.placement().placed()).isZero();
            assertThat(read(i, 8)).containsOnly(0);
        }
    }

    /**
     * Another session's LOGICAL UNIT RESET aborts a write whose payload is being read into its buffer: the write
     * ends with TASK ABORTED at once, the rest of the payload still lands in the buffer the task kept (not in one
     * that went back to the pool meanwhile), nothing is written, and the connection and the ITT carry on.
     */
    @Test
    void resetByAnotherSessionWhilePlacingDiscardsTheRest() throws Exception {
        try (TestInitiator b = loggedIn("CRC32C")) {
            Connection conn = onlyConnection();
            byte[] data = pattern(5);
            R2t r2t = write(b, 7);
            ByteBuffer pdu = b.encoded(dataOut(7, r2t, 0, 0, LENGTH, data, true));
            b.ch.write(pdu.slice(0, 4096));
            until(() -> conn.placement().placing());
            try (TestInitiator a = loggedIn("None", 0x400000000032L)) { // another I_T nexus
                a.send(new TaskManagementRequest(true, TaskManagement.LOGICAL_UNIT_RESET, 0, 30, Codes.RESERVED_TAG,
                        a.cmdSn, a.expStatSn, 0, 0));
                ScsiResponse aborted = (ScsiResponse) b.receive();
                assertThat(aborted.initiatorTaskTag()).isEqualTo(7);
                assertThat(aborted.status()).isEqualTo(ScsiStatus.TASK_ABORTED);
                b.expStatSn = aborted.statSn() + 1;
                assertThat(((TaskManagementResponse) a.receive()).response())
                        .isEqualTo(TaskManagement.FUNCTION_COMPLETE);
            }
            b.ch.write(pdu.position(4096));
            assertThat(ascAscq(command(b, 9, cdb(0)))).isEqualTo(0x2903); // the reset's unit attention
            assertThat(read(b, 10)).containsOnly(0); // the aborted write never happened
            byte[] again = pattern(6);
            R2t r2 = write(b, 7); // the same ITT: the task was recycled once its payload was in
            sendInPieces(b, conn, b.encoded(dataOut(7, r2, 0, 0, LENGTH, again, true)), 1);
            assertThat(((ScsiResponse) b.receive()).status()).isZero();
            assertThat(read(b, 11)).isEqualTo(again);
        }
    }

    private TestInitiator loggedIn(String digest) throws Exception {
        return loggedIn(digest, 0x400000000031L);
    }

    private TestInitiator loggedIn(String digest, long isid) throws Exception {
        TestInitiator i = new TestInitiator(server.boundAddresses().get(0));
        i.isid = isid;
        i.login(TARGET, "InitialR2T=Yes", "ImmediateData=No", "HeaderDigest=" + digest, "DataDigest=" + digest);
        clearUnitAttention(i);
        return i;
    }

    private Connection onlyConnection() {
        assertThat(server.openConnections()).hasSize(1);
        return server.openConnections().get(0);
    }

    private static byte[] pattern(long seed) {
        byte[] b = new byte[LENGTH];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** A WRITE(10) of the whole range without immediate data; returns the R2T asking for all of it. */
    private static R2t write(TestInitiator i, int itt) throws Exception {
        i.send(new ScsiCommand(false, true, false, true, 1, 0, itt, LENGTH, i.cmdSn++, i.expStatSn,
                cdb(0x2a, 0, 0, 0, LBA >>> 8, LBA & 0xff, 0, 0, BLOCKS, 0), -1, null));
        R2t r2t = (R2t) i.receive();
        assertThat(r2t.desiredDataTransferLength()).isEqualTo(LENGTH);
        return r2t;
    }

    private static DataOut dataOut(int itt, R2t r2t, int dataSn, int offset, int length, byte[] data, boolean fin) {
        return new DataOut(fin, 0, itt, r2t.targetTransferTag(), 0, dataSn, offset,
                ByteBuffer.wrap(data, offset, length));
    }

    /**
     * Writes {@code pdu} in pieces and waits for the server to take each in: the header and a little payload (the
     * server starts placing), the payload in uneven pieces, then its last bytes, padding and digest a few bytes at a
     * time. The {@code placedBefore}-th placement is this one.
     */
    private static void sendInPieces(TestInitiator i, Connection conn, ByteBuffer pdu, long placedBefore)
            throws Exception {
        DataOutPlacement p = conn.placement();
        int end = pdu.limit();
        i.ch.write(pdu.slice(0, 300));
        until(p::placing);
        int at = 300;
        int piece = 7_001;
        while (end - at > 10) {
            int n = Math.min(piece, end - at - 10);
            long before = p.placedBytes();
            i.ch.write(pdu.slice(at, n));
            at += n;
            until(() -> p.placedBytes() >= before + n); // payload only: it ends at least 4 bytes before end
            piece = piece * 3 / 2;
        }
        while (at < end) { // the end of the payload, padding and data digest in 3-byte pieces
            int n = Math.min(3, end - at);
            i.ch.write(pdu.slice(at, n));
            at += n;
        }
        until(() -> p.placed() > placedBefore);
    }

    private static byte[] read(TestInitiator i, int itt) throws Exception {
        i.send(new ScsiCommand(false, true, true, false, 1, 0, itt, LENGTH, i.cmdSn++, i.expStatSn,
                cdb(0x28, 0, 0, 0, LBA >>> 8, LBA & 0xff, 0, 0, BLOCKS, 0), -1, null));
        byte[] got = new byte[LENGTH];
        while (true) {
            DataIn in = (DataIn) i.receive();
            assertThat(in.initiatorTaskTag()).isEqualTo(itt);
            in.data().get(in.data().position(), got, in.bufferOffset(), in.data().remaining());
            if (in.statusPresent()) {
                assertThat(in.status()).isZero();
                i.expStatSn = in.statSn() + 1;
                return got;
            }
        }
    }

    /** Waits (polling, up to 20 s) for the server to reach a state; orders the test's steps, asserts no timing. */
    private static void until(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("server state not reached").isLessThan(deadline);
            Thread.sleep(1);
        }
    }
}
