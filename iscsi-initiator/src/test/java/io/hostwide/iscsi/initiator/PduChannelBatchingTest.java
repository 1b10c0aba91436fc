package io.hostwide.iscsi.initiator;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.pdu.DataIn;
import io.hostwide.iscsi.pdu.NopIn;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.pdu.PduEncoder;
import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.TaskAttribute;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The batching of {@link PduChannel} over a real socket: frames that arrive together, split anywhere, or wrap past
 * the end of the receive buffer come out whole and in order; frames queued without flush leave in queue order
 * (CmdSN order) with the next flush, and a batch larger than the send buffer goes out in order too.
 */
class PduChannelBatchingTest {
    private static final int SEGMENT = 8192;

    private ServerSocket server;
    private Socket peer;
    private PduChannel ch;

    @BeforeEach
    void connect() throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ch = PduChannel.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), 5000);
        peer = server.accept();
        peer.setSoTimeout(30_000);
        ch.fullFeature(false, false, SEGMENT, SEGMENT);
        ch.readTimeout(30_000);   // a broken test fails instead of hanging
    }

    @AfterEach
    void close() throws IOException {
        ch.close();
        peer.close();
        server.close();
    }

    @Test
    void framesSplitAnywhereComeOutWholeAndInOrder() throws Exception {
        Random r = new Random(13);
        PduEncoder enc = new PduEncoder(false, false);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        List<byte[]> payloads = new ArrayList<>();
        int frames = 120;   // about 500 KiB: the 8 KiB + 64 KiB receive buffer wraps many times
        for (int i = 0; i < frames; i++) {
            Pdu p;
            if (i % 10 == 7) {   // a non-hot PDU between the Data-Ins goes through the decoder
                p = new NopIn(0, i, 0xffff_ffff, i, 1, 64, null);
                payloads.add(null);
            } else {
                byte[] data = new byte[i % 3 == 0 ? SEGMENT : 1 + r.nextInt(SEGMENT)];
                r.nextBytes(data);
                payloads.add(data);
                p = new DataIn(true, false, false, false, false, 0, 0, i, 0xffff_ffff, 0, 1, 64, 0, 0, 0,
                        ByteBuffer.wrap(data));
            }
            ByteBuffer b = ByteBuffer.allocate(enc.encodedLength(p));
            enc.encode(p, b);
            wire.write(b.array(), 0, b.position());
        }
        byte[] all = wire.toByteArray();
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try {
                OutputStream out = peer.getOutputStream();
                for (int at = 0; at < all.length; ) {   // chunks from 1 byte to 3 frames: splits land anywhere
                    int n = Math.min(all.length - at, r.nextInt(4) == 0 ? 1 + r.nextInt(60) : r.nextInt(3 * SEGMENT));
                    out.write(all, at, n);
                    out.flush();
                    at += n;
                }
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        for (int i = 0; i < frames; i++) {
            boolean hot = ch.next();
            if (payloads.get(i) == null) {
                assertThat(hot).isFalse();
                int itt = i;
                assertThat(ch.decoded()).isInstanceOfSatisfying(NopIn.class,
                        nop -> assertThat(nop.initiatorTaskTag()).isEqualTo(itt));
                continue;
            }
            assertThat(hot).as("frame %d", i).isTrue();
            ByteBuffer f = ch.frame();
            assertThat(f.getInt(ch.frameAt() + Bhs.INITIATOR_TASK_TAG)).isEqualTo(i);
            byte[] got = new byte[ch.hotDataLength()];
            f.get(ch.hotDataAt(), got);
            assertThat(got).as("data of frame %d", i).isEqualTo(payloads.get(i));
        }
        writer.get(30, TimeUnit.SECONDS);
    }

    @Test
    void heldFramesLeaveInQueueOrderWithTheNextFlush() throws Exception {
        byte[] cdb = new byte[16];
        int n = 40;   // 40 commands with 8 KiB of immediate data: more than the send buffer holds
        byte[] imm = new byte[SEGMENT];
        new Random(5).nextBytes(imm);
        ByteBuffer src = ByteBuffer.wrap(imm);
        CompletableFuture<List<int[]>> reader = CompletableFuture.supplyAsync(() -> readCommands(n + 3));
        for (int i = 0; i < 3; i++) {   // three small ones held back
            send(cdb, i, 0, src, false);
        }
        assertThat(ch.pending()).isTrue();
        for (int i = 3; i < n + 3; i++) {   // the buffer fills and is written in order before the next frame
            send(cdb, i, i % 2 == 0 ? SEGMENT : 0, src, i == n + 2);
        }
        assertThat(ch.pending()).isFalse();
        List<int[]> got = reader.get(30, TimeUnit.SECONDS);
        for (int i = 0; i < got.size(); i++) {
            assertThat(got.get(i)).as("command %d: CmdSN, ITT", i).containsExactly(100 + i, i);
        }
        assertThat(got).hasSize(n + 3);
    }

    /**
     * Large Data-In segments not yet received go from the socket straight into the command's buffer: what had
     * arrived is copied there, the rest read into it, padding skipped, and the stream stays framed; a refused ITT
     * takes the ordinary path. The peer sends each segment's tail only once the placement has begun, so the segment
     * is always incomplete when the reader reaches it.
     */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void largeDataInGoesStraightToTheCommandBuffer() throws Exception {
        ch.fullFeature(false, false, 256 * 1024, SEGMENT);
        ch.readTimeout(0);   // placement is for full feature phase reads without a timeout
        Random r = new Random(17);
        int[] itts = {1, 99, 2};
        int[] lengths = {100_000, 40_000, 33_333};   // 33 333: the segment is padded
        int[] offsets = {0, 0, 4};
        ByteBuffer[] dst = {ByteBuffer.allocateDirect(100_000), null, ByteBuffer.allocate(40_000)};
        byte[][] data = new byte[3][];
        java.util.concurrent.Semaphore begun = new java.util.concurrent.Semaphore(0);
        List<String> calls = new ArrayList<>();
        ch.placement(new PduChannel.Placement() {
            private int current;

            @Override
            public boolean begin(int itt, long bufferOffset, int length) {
                calls.add("begin " + itt + " " + bufferOffset + " " + length);
                begun.release();
                current = itt == 1 ? 0 : itt == 2 ? 2 : -1;
                return current >= 0;
            }

            @Override
            public ByteBuffer target() {
                return dst[current];
            }

            @Override
            public int targetAt() {
                return offsets[current];
            }

            @Override
            public void end() {
                calls.add("end");
            }
        });
        PduEncoder enc = new PduEncoder(false, false);
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try {
                OutputStream out = peer.getOutputStream();
                for (int i = 0; i < 3; i++) {
                    data[i] = new byte[lengths[i]];
                    r.nextBytes(data[i]);
                    DataIn d = new DataIn(true, false, false, false, false, 0, 0, itts[i], 0xffff_ffff, 0, 1, 64, 0,
                            offsets[i], 0, ByteBuffer.wrap(data[i]));
                    ByteBuffer b = ByteBuffer.allocate(enc.encodedLength(d));
                    enc.encode(d, b);
                    out.write(b.array(), 0, Bhs.LENGTH + 1000);
                    out.flush();
                    if (!begun.tryAcquire(30, TimeUnit.SECONDS)) {
                        throw new AssertionError("the reader never began placing ITT " + itts[i]);
                    }
                    out.write(b.array(), Bhs.LENGTH + 1000, b.position() - Bhs.LENGTH - 1000);
                }
                NopIn n = new NopIn(0, 7, 0xffff_ffff, 0, 1, 64, null);
                ByteBuffer b = ByteBuffer.allocate(enc.encodedLength(n));
                enc.encode(n, b);
                out.write(b.array(), 0, b.position());
            } catch (IOException | InterruptedException e) {
                throw new RuntimeException(e);
            }
        });
        for (int i = 0; i < 3; i++) {
            assertThat(ch.next()).as("frame %d is hot", i).isTrue();
            assertThat(ch.frame().getInt(ch.frameAt() + Bhs.INITIATOR_TASK_TAG)).isEqualTo(itts[i]);
            assertThat(ch.hotDataLength()).isEqualTo(lengths[i]);
            byte[] got = new byte[lengths[i]];
            if (itts[i] == 99) {
                assertThat(ch.placed()).isFalse();
                ch.frame().get(ch.hotDataAt(), got);
            } else {
                assertThat(ch.placed()).isTrue();
                dst[i == 0 ? 0 : 2].get(offsets[i], got, 0, lengths[i]);
            }
            assertThat(got).as("data of ITT %d", itts[i]).isEqualTo(data[i]);
        }
        assertThat(ch.next()).isFalse();
        assertThat(ch.decoded()).isInstanceOfSatisfying(NopIn.class, n -> assertThat(n.initiatorTaskTag()).isEqualTo(7));
        assertThat(calls).containsExactly("begin 1 0 100000", "end", "begin 99 0 40000", "begin 2 4 33333", "end");
        writer.get(30, TimeUnit.SECONDS);
    }

    private void send(byte[] cdb, int i, int immediate, ByteBuffer src, boolean flush) throws IOException {
        int at = ch.beginHot(immediate);
        HotHeaders.scsiCommand(ch.sendBuffer(), at, true, false, immediate > 0, TaskAttribute.SIMPLE, 0, i,
                immediate, 100 + i, 1, cdb, 16, immediate);
        ch.sendHot(at, src, 0, immediate, flush);
    }

    /** Reads {@code n} SCSI Command PDUs; returns each one's CmdSN and ITT, and checks its immediate data. */
    private List<int[]> readCommands(int n) {
        try {
            DataInputStream in = new DataInputStream(peer.getInputStream());
            List<int[]> out = new ArrayList<>();
            byte[] bhs = new byte[Bhs.LENGTH];
            for (int i = 0; i < n; i++) {
                in.readFully(bhs);
                ByteBuffer b = ByteBuffer.wrap(bhs);
                int dsl = (b.get(Bhs.DATA_SEGMENT_LENGTH) & 0xff) << 16 | (b.getShort(Bhs.DATA_SEGMENT_LENGTH + 1) & 0xffff);
                in.readFully(new byte[(dsl + 3) & ~3]);
                out.add(new int[] {b.getInt(Bhs.CMD_SN), b.getInt(Bhs.INITIATOR_TASK_TAG)});
            }
            return out;
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }
}
