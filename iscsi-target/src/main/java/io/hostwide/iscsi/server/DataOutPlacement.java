package io.hostwide.iscsi.server;

import io.hostwide.iscsi.pdu.Digest;
import io.hostwide.iscsi.pdu.HotPdu;
import io.hostwide.iscsi.pdu.PduDecoder;
import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Codes;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ScatteringByteChannel;
import java.util.zip.CRC32C;

/**
 * Reads a large SCSI Data-Out's payload (RFC 7143 §11.7) from the socket straight into its command's Data-Out buffer
 * at the PDU's buffer offset, instead of into the connection's receive buffer and then copying it over (issue 13: at
 * 1 MiB writes that copy was 30% of the server's CPU).
 *
 * <p>Once the reader has a Data-Out's BHS (and header digest) but not its payload, and the task is found, waiting
 * and the PDU fits its sequence ({@link R2tSequencer#openDirect}), the bytes of the payload already received are
 * copied once and the rest is read with a scattering read: the command buffer's remaining slice first, then the
 * receive buffer, limited to the padding and data digest plus the next PDU's header, so that a following large
 * Data-Out is seen before its payload is read, and placed the same way. The data digest is computed over the payload
 * where it lands, as it arrives. Everything else (unknown or ended tasks, out-of-sequence PDUs, small payloads, the
 * trace) takes the buffered path, which answers each case as before.
 *
 * <p>Reading ahead: an initiator sends a burst as Data-Outs of MaxRecvDataSegmentLength each, back to back (libiscsi
 * answers a 768 KiB R2T with three 256 KiB PDUs), so the same scattering read also takes up to {@link #AHEAD} further
 * PDUs of the same sequence, as they are expected to come: each one's header (after the previous payload's padding
 * and digest) into a small buffer of its own, its payload straight into its place in the command buffer. When a
 * header has arrived it is checked against what was expected and against the sequence ({@link
 * FullFeature#continueDirect}, under the task's monitor, which also accounts for the payload before it); one that
 * differs (another PDU came between, a shorter segment, a digest error) makes the reader give every byte read past
 * the previous payload back to the receive buffer, in order, so the buffered path sees the stream exactly as sent.
 * The task stays "receiving" throughout, so its buffer cannot go back to the pool while bytes may still land in it.
 * How far ahead is bounded so that those bytes always fit the receive buffer.
 *
 * <p>All buffers are direct memory (the core's pooled Data-Out buffers, the connection's receive buffer, the header
 * buffers), so NIO reads into them without a temporary direct buffer. One per connection, reader thread only.
 */
final class DataOutPlacement {
    /**
     * Payload still to come below which a Data-Out takes the buffered path: copying a few KiB costs less than the
     * extra read a direct placement needs.
     */
    static final int MIN_DIRECT = 16 * 1024;
    /**
     * Further Data-Outs of the same sequence a read may take straight into place (-Dhostwide.iscsi.dataOutAhead=N,
     * 0 to 8; 0 reads one payload per read, as before; for before/after measurements with one build).
     */
    static final int AHEAD = Math.max(0, Math.min(8, Integer.getInteger("hostwide.iscsi.dataOutAhead", 3)));
    /** Padding (at most 3) plus data digest plus BHS plus header digest. */
    private static final int GAP_CAPACITY = 3 + Codes.DIGEST_LENGTH + Bhs.LENGTH + Codes.DIGEST_LENGTH;

    /** The BHS of the PDU being placed, for a Reject. */
    private final ByteBuffer header = ByteBuffer.allocate(Bhs.LENGTH);
    /**
     * The PDUs of one placement: slot 0 is the one whose header was seen, slots 1..{@link #last} the ones expected
     * after it; {@link #cur} is being placed. {@code gap[j]} holds slot j-1's padding and data digest and slot j's
     * header.
     */
    private final ByteBuffer[] payload = new ByteBuffer[AHEAD + 1];
    private final ByteBuffer[] gap = new ByteBuffer[AHEAD + 1];
    private final int[] offsetOf = new int[AHEAD + 1];
    private final int[] lengthOf = new int[AHEAD + 1];
    /** The read's destinations: payload 0, gap 1, payload 1, ..., payload {@link #last}, receive buffer. */
    private final ByteBuffer[] dsts = new ByteBuffer[2 * AHEAD + 2];
    private final HotPdu next = new HotPdu();
    private final CRC32C crc = new CRC32C();
    private Task task;
    private int cur;
    private int last;
    /** Slot {@link #cur}'s bytes, position = bytes already digested. */
    private ByteBuffer hashed;
    private boolean dataDigest;
    /** The next PDU's BHS and header digest: how far past the tail a read may go. */
    private int headerLength;
    private int itt;
    private int ttt;
    private int dataSn;
    private boolean fin;
    /**
     * Payloads placed, their bytes read from the socket straight into place or copied (arrived early), and bytes
     * read ahead then given back to the receive buffer; written by the reader only, volatile so that tests may
     * watch them (a few writes per large PDU).
     */
    private volatile long placed;
    private volatile long placedBytes;
    private volatile long copiedBytes;
    private volatile long aheadPlaced;
    private volatile long givenBack;
    /** Every byte the placement's reads took from the socket (payloads, gaps, receive buffer). */
    private volatile long readBytes;
    /** Whether a payload is being placed, for tests watching from another thread; {@link #task} says it here. */
    private volatile boolean placing;

    DataOutPlacement() {
        for (int j = 1; j <= AHEAD; j++) {
            gap[j] = ByteBuffer.allocateDirect(GAP_CAPACITY);
        }
    }

    /** Whether a payload is being placed (reader thread; tests: {@link #placing()}). */
    boolean active() {
        return task != null;
    }

    boolean placing() {
        return placing;
    }

    long placed() {
        return placed;
    }

    long placedBytes() {
        return placedBytes;
    }

    long copiedBytes() {
        return copiedBytes;
    }

    /** Payloads placed that were read ahead, behind another one's, in the same reads. */
    long aheadPlaced() {
        return aheadPlaced;
    }

    /** Bytes read ahead that were not what was expected and went back to the receive buffer. */
    long givenBack() {
        return givenBack;
    }

    long readBytes() {
        return readBytes;
    }

    /**
     * Starts placing the Data-Out {@code v} describes into task {@code t}'s buffer (which {@link
     * R2tSequencer#openDirect} marked receiving): copies the {@code arrived} payload bytes the receive buffer
     * already holds (fewer than the payload) and plans the PDUs expected after it in its sequence, which ends at
     * {@code sequenceEnd}: each as long as this one (the last one shorter), as many as {@link #AHEAD} allows and
     * as fit {@code recvCapacity} should they have to be given back. The caller then consumes the receive buffer
     * to its limit.
     */
    void begin(Task t, HotPdu v, int arrived, boolean digest, int nextHeaderLength, int sequenceEnd,
            int recvCapacity) {
        ByteBuffer recv = v.buffer();
        header.put(0, recv, v.dataAt() - nextHeaderLength, Bhs.LENGTH);
        task = t;
        placing = true;
        itt = v.initiatorTaskTag();
        ttt = v.targetTransferTag();
        dataSn = v.dataSn();
        fin = v.fin();
        dataDigest = digest;
        headerLength = nextHeaderLength;
        int length = v.dataLength();
        cur = 0;
        last = 0;
        offsetOf[0] = v.bufferOffset();
        lengthOf[0] = length;
        payload[0] = t.dataOut.slice(v.bufferOffset(), length);
        payload[0].put(0, recv, v.dataAt(), arrived).position(arrived);
        copiedBytes += arrived;
        planAhead(t, sequenceEnd, recvCapacity);
        startDigest();
    }

    private void planAhead(Task t, int sequenceEnd, int recvCapacity) {
        if (fin) {
            return;
        }
        int room = recvCapacity - 2 * GAP_CAPACITY; // what may have to go back, plus the last tail and next header
        int at = offsetOf[0] + lengthOf[0];
        while (last < AHEAD) {
            int n = Math.min(lengthOf[0], sequenceEnd - at);
            int cost = tail(last) + headerLength + n;
            if (n < MIN_DIRECT || cost > room) {
                return;
            }
            room -= cost;
            int j = ++last;
            offsetOf[j] = at;
            lengthOf[j] = n;
            payload[j] = t.dataOut.slice(at, n);
            gap[j].clear().limit(tail(j - 1) + headerLength);
            at += n;
        }
    }

    /** Slot {@code j}'s padding to 4 bytes and data digest. */
    private int tail(int j) {
        return (-lengthOf[j] & 3) + (dataDigest ? Codes.DIGEST_LENGTH : 0);
    }

    /**
     * One read while placing: into the payloads' places and the headers between them, and on into {@code recv} (in
     * write mode, holding only bytes past the last payload), which takes at most the last tail and the next PDU's
     * header. Returns what the channel returned.
     */
    long read(ScatteringByteChannel ch, ByteBuffer recv) throws IOException {
        int limit = recv.limit();
        recv.limit(Math.min(recv.capacity(), Math.max(recv.position() + 1, tail(last) + headerLength)));
        try {
            if (!payload[last].hasRemaining()) {
                long n = ch.read(recv);
                readBytes += Math.max(0, n);
                return n;
            }
            long before = 0;
            for (int j = cur; j <= last; j++) {
                before += payload[j].position();
            }
            int first = 2 * cur;
            dsts[first] = payload[cur];
            for (int j = cur + 1; j <= last; j++) {
                dsts[2 * j - 1] = gap[j];
                dsts[2 * j] = payload[j];
            }
            dsts[2 * last + 1] = recv;
            long n = ch.read(dsts, first, 2 * (last - cur) + 2);
            long after = 0;
            for (int j = cur; j <= last; j++) {
                after += payload[j].position();
            }
            placedBytes += after - before;
            readBytes += Math.max(0, n);
            hash();
            return n;
        } finally {
            recv.limit(limit);
        }
    }

    /**
     * Ends each payload that is in with its tail: checks its data digest and hands the PDU to {@code ffp}, going on
     * with the next one read ahead when its header is what was expected; else gives the bytes read past the tail
     * back to {@code recv} (read mode) and ends. Returns false while bytes are still missing, true when the
     * placement has ended and {@code recv} holds what follows.
     */
    boolean finish(ByteBuffer recv, FullFeature ffp, PduDecoder decoder) {
        while (true) {
            if (payload[cur].hasRemaining()) {
                return false;
            }
            if (cur == last) {
                return finishLast(recv, ffp);
            }
            ByteBuffer g = gap[cur + 1];
            if (g.hasRemaining()) {
                return false;
            }
            int tail = tail(cur);
            boolean digestOk = digestOk(g, 0, tail);
            int j = cur + 1;
            if (decoder.hotDataOutHeader(g, tail, g.limit() - tail, next) && next.dataLength() == lengthOf[j]
                    && next.bufferOffset() == offsetOf[j] && ffp.continueDirect(task, itt, ttt, dataSn,
                            offsetOf[cur], lengthOf[cur], fin, digestOk, next)) {
                placed++;
                aheadPlaced++;
                cur = j;
                dataSn = next.dataSn();
                fin = next.fin();
                header.put(0, g, tail, Bhs.LENGTH);
                startDigest();
                continue;
            }
            giveBack(recv, g, tail);
            Task t = end();
            placed++;
            ffp.closeDirect(t, itt, ttt, dataSn, offsetOf[cur], lengthOf[cur], fin, digestOk, header);
            return true;
        }
    }

    /** The last payload planned is in: its tail is in {@code recv}. */
    private boolean finishLast(ByteBuffer recv, FullFeature ffp) {
        int tail = tail(cur);
        if (recv.remaining() < tail) {
            return false;
        }
        int at = recv.position();
        boolean digestOk = digestOk(recv, at, tail);
        recv.position(at + tail);
        Task t = end();
        placed++;
        ffp.closeDirect(t, itt, ttt, dataSn, offsetOf[cur], lengthOf[cur], fin, digestOk, header);
        return true;
    }

    /** Checks slot {@link #cur}'s data digest against the tail at {@code at} in {@code b} (true without digests). */
    private boolean digestOk(ByteBuffer b, int at, int tail) {
        if (!dataDigest) {
            return true;
        }
        int pad = tail - Codes.DIGEST_LENGTH;
        for (int i = 0; i < pad; i++) { // the padding is part of the digested segment (RFC 7143 §13.1)
            crc.update(b.get(at + i));
        }
        return (int) crc.getValue() == Digest.get(b, at + pad);
    }

    /**
     * The header read ahead into {@code g} (from {@code from}) is not the expected one: every byte read after
     * slot {@link #cur}'s tail, in the order it came (that header, the payload and gaps behind it, what {@code
     * recv} holds), goes back to {@code recv}, read mode, for the buffered path. Before the task is let go: the
     * bytes are still in its buffer.
     */
    private void giveBack(ByteBuffer recv, ByteBuffer g, int from) {
        byte[] rest = new byte[recv.remaining()]; // at most a tail and a header: reads stop there while placing
        recv.get(rest);
        recv.clear();
        recv.put(g.flip().position(from));
        for (int j = cur + 1; j <= last; j++) {
            recv.put(payload[j].flip());
            if (j < last) {
                recv.put(gap[j + 1].flip());
            }
        }
        recv.put(rest);
        recv.flip();
        givenBack += recv.remaining();
    }

    /** The connection ended while a payload was on its way: its task is left to the connection's cleanup. */
    void abandon(FullFeature ffp) {
        if (task != null) {
            Task t = end();
            ffp.closeDirect(t, itt, ttt, dataSn, offsetOf[cur], lengthOf[cur], fin, false, null);
        }
    }

    private Task end() {
        Task t = task;
        task = null;
        placing = false;
        hashed = null;
        for (int j = 0; j <= last; j++) {
            payload[j] = null;
        }
        java.util.Arrays.fill(dsts, null);
        return t;
    }

    private void startDigest() {
        hashed = payload[cur].duplicate().position(0);
        crc.reset();
        hash();
    }

    /** Digests slot {@link #cur}'s bytes received since the last call, while they are still in cache. */
    private void hash() {
        if (dataDigest) {
            crc.update(hashed.limit(payload[cur].position()));
        }
    }
}
