package io.hostwide.iscsi.server;

import static io.hostwide.iscsi.server.DataOutPlacementTest.BLOCKS;
import static io.hostwide.iscsi.server.DataOutPlacementTest.LBA;
import static io.hostwide.iscsi.server.DataOutPlacementTest.LENGTH;
import static io.hostwide.iscsi.server.DataOutPlacementTest.pattern;
import static io.hostwide.iscsi.server.DataOutPlacementTest.read;
import static io.hostwide.iscsi.server.DataOutPlacementTest.until;
import static io.hostwide.iscsi.server.ServerLoopbackTest.TARGET;
import static io.hostwide.iscsi.server.ServerLoopbackTest.cdb;
import static io.hostwide.iscsi.server.ServerLoopbackTest.clearUnitAttention;
import static io.hostwide.iscsi.server.TaskManagementWiringTest.command;
import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.pdu.DataOut;
import io.hostwide.iscsi.pdu.DecodeResult;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.pdu.R2t;
import io.hostwide.iscsi.pdu.Reject;
import io.hostwide.iscsi.pdu.ScsiCommand;
import io.hostwide.iscsi.pdu.ScsiResponse;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.RejectReason;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Data-Outs read ahead (issue 13): while one large Data-Out's payload is placed, the same reads take the next PDUs of
 * its sequence straight into place ({@link DataOutPlacement#AHEAD}). The test initiator starts a burst, waits until
 * the server places its first payload, then sends the rest in uneven pieces, each taken in before the next, so
 * headers, padding and digests are split across reads. Every written byte must read back; a PDU that is not the
 * expected one (another length, another PDU between, a wrong DataSN, a damaged header or payload) must end as it does
 * without reading ahead: the bytes go back to the buffered path. No timing is asserted.
 */
@Timeout(60)
class DataOutReadAheadTest {
    /** 20,001 bytes per Data-Out (padded), so 96 KiB is five PDUs: four read ahead of the last one's header. */
    private static final int SEGMENT = 20_001;
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
    void burstOfEqualSegmentsIsReadAheadIntoPlace(String digest) throws Exception {
        try (TestInitiator i = loggedIn(digest, "InitialR2T=Yes", "ImmediateData=No")) {
            Connection conn = onlyConnection();
            byte[] data = pattern(21);
            R2t r2t = write(i, 7, 0);
            sendBurst(i, conn, burst(i, 7, r2t.targetTransferTag(), 0, data, SEGMENT, SEGMENT, SEGMENT, SEGMENT,
                    LENGTH - 4 * SEGMENT));
            ScsiResponse w = (ScsiResponse) i.receive();
            assertThat(w.status()).isZero();
            i.expStatSn = w.statSn() + 1;
            assertThat(read(i, 8)).isEqualTo(data);
            DataOutPlacement p = conn.placement();
            assertThat(p.aheadPlaced()).isEqualTo(DataOutPlacement.AHEAD);
            assertThat(p.placed()).isEqualTo(5);
            assertThat(p.givenBack()).isZero();
        }
    }

    /**
     * RFC 7143 §3.2.4.2 with ImmediateData and InitialR2T=No: immediate data in the command, then an unsolicited
     * burst (TTT 0xffffffff) up to FirstBurstLength read ahead, then the solicited rest.
     */
    @ParameterizedTest
    @ValueSource(strings = {"None", "CRC32C"})
    void unsolicitedBurstAfterImmediateDataIsReadAhead(String digest) throws Exception {
        try (TestInitiator i = loggedIn(digest, "InitialR2T=No", "ImmediateData=Yes", "FirstBurstLength=65536")) {
            Connection conn = onlyConnection();
            byte[] data = pattern(22);
            int immediate = 4096;
            int seg = 20_480;
            ByteBuffer cmd = i.encoded(new ScsiCommand(false, false, false, true, 1, 0, 7, LENGTH, i.cmdSn++,
                    i.expStatSn, writeCdb(), -1, ByteBuffer.wrap(data, 0, immediate)));
            while (cmd.hasRemaining()) {
                i.ch.write(cmd);
            }
            sendBurst(i, conn, burst(i, 7, Codes.RESERVED_TAG, immediate, data, seg, seg, seg));
            R2t r2t = (R2t) i.receive();
            assertThat(r2t.bufferOffset()).isEqualTo(65_536);
            sendBurst(i, conn, burst(i, 7, r2t.targetTransferTag(), 65_536, data, LENGTH - 65_536));
            ScsiResponse w = (ScsiResponse) i.receive();
            assertThat(w.status()).isZero();
            i.expStatSn = w.statSn() + 1;
            assertThat(read(i, 8)).isEqualTo(data);
            assertThat(conn.placement().aheadPlaced()).isEqualTo(2);
            assertThat(conn.placement().givenBack()).isZero();
        }
    }

    /** Segments of another length than the first: what was read ahead goes back, and the write is intact. */
    @ParameterizedTest
    @ValueSource(strings = {"None", "CRC32C"})
    void segmentOfAnotherLengthIsGivenBack(String digest) throws Exception {
        try (TestInitiator i = loggedIn(digest, "InitialR2T=Yes", "ImmediateData=No")) {
            Connection conn = onlyConnection();
            byte[] data = pattern(23);
            R2t r2t = write(i, 7, 0);
            sendBurst(i, conn, burst(i, 7, r2t.targetTransferTag(), 0, data, SEGMENT, 30_000,
                    LENGTH - SEGMENT - 30_000));
            ScsiResponse w = (ScsiResponse) i.receive();
            assertThat(w.status()).isZero();
            i.expStatSn = w.statSn() + 1;
            assertThat(read(i, 8)).isEqualTo(data);
            assertThat(conn.placement().givenBack()).isPositive();
        }
    }

    /** Another command between two Data-Outs of a burst: it is answered, and the burst goes on. */
    @Test
    void commandBetweenDataOutsIsHandledInOrder() throws Exception {
        try (TestInitiator i = loggedIn("CRC32C", "InitialR2T=Yes", "ImmediateData=No")) {
            Connection conn = onlyConnection();
            byte[] data = pattern(24);
            R2t r2t = write(i, 7, 0);
            List<ByteBuffer> pdus = pdus(i, 7, r2t.targetTransferTag(), 0, data, SEGMENT, SEGMENT,
                    LENGTH - 2 * SEGMENT);
            pdus.add(1, i.encoded(new ScsiCommand(false, true, false, false, 1, 0, 9, 0, i.cmdSn++, i.expStatSn,
                    cdb(0), -1, null))); // TEST UNIT READY
            sendBurst(i, conn, concat(pdus));
            ScsiResponse tur = (ScsiResponse) i.receive();
            assertThat(tur.initiatorTaskTag()).isEqualTo(9);
            assertThat(tur.status()).isZero();
            ScsiResponse w = (ScsiResponse) i.receive();
            assertThat(w.initiatorTaskTag()).isEqualTo(7);
            assertThat(w.status()).isZero();
            i.expStatSn = w.statSn() + 1;
            assertThat(read(i, 8)).isEqualTo(data);
            assertThat(conn.placement().givenBack()).isPositive();
        }
    }

    /**
     * A Data-Out out of sequence (a DataSN skipped) inside a burst read ahead: Reject (protocol error) and the task
     * ends with Target Failure, nothing written, as without reading ahead (RFC 7143 §11.7.5); the connection goes on.
     */
    @Test
    void dataOutOutOfSequenceInTheMiddleRejectsAndFailsTheTask() throws Exception {
        try (TestInitiator i = loggedIn("None", "InitialR2T=Yes", "ImmediateData=No")) {
            Connection conn = onlyConnection();
            byte[] data = pattern(25);
            R2t r2t = write(i, 7, 0);
            List<ByteBuffer> pdus = new ArrayList<>();
            int[] dataSns = {0, 2, 3, 4, 5}; // DataSN 1 missing
            for (int k = 0, at = 0; k < 5; k++, at += SEGMENT) {
                int len = k < 4 ? SEGMENT : LENGTH - 4 * SEGMENT;
                pdus.add(i.encoded(new DataOut(k == 4, 0, 7, r2t.targetTransferTag(), 0, dataSns[k], at,
                        ByteBuffer.wrap(data, at, len))));
            }
            sendBurst(i, conn, concat(pdus));
            DecodeResult d = i.receive();
            assertThat(d).isInstanceOf(Reject.class);
            assertThat(((Reject) d).reason()).isEqualTo(RejectReason.PROTOCOL_ERROR.code);
            ScsiResponse failed = (ScsiResponse) i.receive();
            assertThat(failed.initiatorTaskTag()).isEqualTo(7);
            assertThat(failed.response()).isEqualTo(Codes.TARGET_FAILURE);
            i.expStatSn = failed.statSn() + 1;
            assertThat(command(i, 9, cdb(0)).status()).isZero();
            assertThat(read(i, 8)).containsOnly(0);
        }
    }

    /** A damaged header digest on a PDU read ahead: the connection closes (RFC 7143 §7.8), as without reading ahead. */
    @Test
    void headerDigestErrorReadAheadClosesTheConnection() throws Exception {
        try (TestInitiator i = loggedIn("CRC32C", "InitialR2T=Yes", "ImmediateData=No")) {
            Connection conn = onlyConnection();
            byte[] data = pattern(26);
            R2t r2t = write(i, 7, 0);
            List<ByteBuffer> pdus = pdus(i, 7, r2t.targetTransferTag(), 0, data, SEGMENT, SEGMENT,
                    LENGTH - 2 * SEGMENT);
            ByteBuffer second = pdus.get(1);
            second.put(50, (byte) (second.get(50) ^ 1)); // the header digest
            ByteBuffer all = concat(pdus);
            i.ch.write(all.slice(0, 300));
            until(conn.placement()::placing);
            all.position(300);
            while (all.hasRemaining()) {
                try {
                    i.ch.write(all);
                } catch (IOException closed) {
                    break;
                }
            }
            until(conn::isClosed);
            assertThat(conn.placement().givenBack()).isPositive();
        }
    }

    /**
     * A damaged payload with the next PDU already read ahead: Reject (Data-Digest-Error) for it, and then its
     * successor is out of sequence (the task still waits for the damaged one's offset), as without reading ahead.
     */
    @Test
    void dataDigestErrorWithTheNextPduReadAhead() throws Exception {
        try (TestInitiator i = loggedIn("CRC32C", "InitialR2T=Yes", "ImmediateData=No")) {
            Connection conn = onlyConnection();
            byte[] data = pattern(27);
            R2t r2t = write(i, 7, 0);
            List<ByteBuffer> pdus = pdus(i, 7, r2t.targetTransferTag(), 0, data, SEGMENT, SEGMENT,
                    LENGTH - 2 * SEGMENT);
            ByteBuffer first = pdus.get(0);
            first.put(48 + 4 + 10_000, (byte) (first.get(48 + 4 + 10_000) ^ 0x20));
            sendBurst(i, conn, concat(pdus));
            Reject digest = (Reject) i.receive();
            assertThat(digest.reason()).isEqualTo(RejectReason.DATA_DIGEST_ERROR.code);
            Reject sequence = (Reject) i.receive();
            assertThat(sequence.reason()).isEqualTo(RejectReason.PROTOCOL_ERROR.code);
            ScsiResponse failed = (ScsiResponse) i.receive();
            assertThat(failed.response()).isEqualTo(Codes.TARGET_FAILURE);
            i.expStatSn = failed.statSn() + 1;
            assertThat(command(i, 9, cdb(0)).status()).isZero();
            assertThat(conn.placement().givenBack()).isPositive();
        }
    }

    private TestInitiator loggedIn(String digest, String... keys) throws Exception {
        TestInitiator i = new TestInitiator(server.boundAddresses().get(0));
        i.isid = 0x400000000041L;
        String[] all = new String[keys.length + 2];
        System.arraycopy(keys, 0, all, 0, keys.length);
        all[keys.length] = "HeaderDigest=" + digest;
        all[keys.length + 1] = "DataDigest=" + digest;
        i.login(TARGET, all);
        clearUnitAttention(i);
        return i;
    }

    private Connection onlyConnection() {
        assertThat(server.openConnections()).hasSize(1);
        return server.openConnections().get(0);
    }

    private static ByteBuffer writeCdb() {
        return cdb(0x2a, 0, 0, 0, LBA >>> 8, LBA & 0xff, 0, 0, BLOCKS, 0);
    }

    /** A WRITE(10) of the whole range without immediate data; returns the R2T asking for all of it. */
    private static R2t write(TestInitiator i, int itt, int expectedOffset) throws Exception {
        i.send(new ScsiCommand(false, true, false, true, 1, 0, itt, LENGTH, i.cmdSn++, i.expStatSn, writeCdb(), -1,
                null));
        R2t r2t = (R2t) i.receive();
        assertThat(r2t.bufferOffset()).isEqualTo(expectedOffset);
        return r2t;
    }

    /** One sequence's Data-Outs from {@code from}, of the given lengths, DataSN from 0, F on the last. */
    private static List<ByteBuffer> pdus(TestInitiator i, int itt, int ttt, int from, byte[] data, int... lengths) {
        List<ByteBuffer> out = new ArrayList<>();
        int at = from;
        for (int k = 0; k < lengths.length; k++) {
            Pdu p = new DataOut(k == lengths.length - 1, 0, itt, ttt, 0, k, at, ByteBuffer.wrap(data, at, lengths[k]));
            out.add(i.encoded(p));
            at += lengths[k];
        }
        return out;
    }

    private static ByteBuffer burst(TestInitiator i, int itt, int ttt, int from, byte[] data, int... lengths) {
        return concat(pdus(i, itt, ttt, from, data, lengths));
    }

    private static ByteBuffer concat(List<ByteBuffer> pdus) {
        ByteBuffer all = ByteBuffer.allocate(pdus.stream().mapToInt(ByteBuffer::remaining).sum());
        pdus.forEach(b -> all.put(b.duplicate()));
        return all.flip();
    }

    /**
     * Sends a burst: its first header and a little payload, waits until the server places that payload, then the
     * rest in growing pieces of uneven size, each taken in by the placement's reads before the next is sent (while
     * the placement lasts), so that reads end inside payloads, paddings, digests and headers.
     */
    private static void sendBurst(TestInitiator i, Connection conn, ByteBuffer all) throws Exception {
        DataOutPlacement p = conn.placement();
        long placedBefore = p.placed();
        i.ch.write(all.slice(0, 300));
        until(() -> p.placing() || p.placed() > placedBefore);
        int at = 300;
        int piece = 1_001;
        while (at < all.limit()) {
            int n = Math.min(piece, all.limit() - at);
            long before = p.readBytes();
            ByteBuffer b = all.slice(at, n);
            while (b.hasRemaining()) {
                i.ch.write(b);
            }
            at += n;
            until(() -> p.readBytes() >= before + n || !p.placing());
            piece = piece * 7 / 4 + 13;
        }
    }
}
