package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.pdu.DecodeResult;
import io.hostwide.iscsi.pdu.Digest;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.pdu.PduDecoder;
import io.hostwide.iscsi.pdu.PduEncoder;
import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.Opcode;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/**
 * One TCP connection carrying PDUs: the initiator's codec pair (RFC 7143 §11.2 framing) over a socket channel.
 * Both directions are batched, which is where the syscalls per I/O go:
 * <ul>
 *   <li>Receive: one read takes whatever the socket holds (up to the buffer), and the frames in it are handed out
 *   one by one from the buffer; at queue depth 16 one read usually carries several Data-In PDUs, where reading the
 *   BHS and then the rest cost two reads per PDU. A frame is decoded in place and valid until the next
 *   {@link #next}/{@link #receive}.</li>
 *   <li>Send: frames are appended to the send buffer and written when the caller says so ({@code flush}), so the
 *   commands a submitter queues together ({@code SCMD_LAST}) leave in one write.</li>
 * </ul>
 * Both buffers are direct: the socket reads and writes them without the JDK's copy through a temporary direct
 * buffer. Sending is called under the owner's send lock; receiving by one thread at a time (the owner's receive
 * lock).
 *
 * <p>In full feature phase a session's channel is {@linkplain #nonBlocking() non-blocking}: a thread waits for the
 * socket in a selector of its own kind (read or write) instead of inside {@code read(2)}, so the wait can be handed
 * from the connection's reader thread to a submitting thread that polls for its completion ({@link #awaitReadable},
 * {@link #wakeupReader}), which a thread blocked in {@code read(2)} could not give up without closing the socket.
 */
final class PduChannel implements AutoCloseable {
    /** Room for a BHS, the largest AHS (255 words), a header digest, padding and a data digest. */
    private static final int OVERHEAD = Bhs.LENGTH + 255 * 4 + 2 * Codes.DIGEST_LENGTH + 4;
    /**
     * Beyond one largest frame, what a buffer holds for batching: small PDUs that arrived together, or commands
     * queued together. 64 KiB is about fifteen 4 KiB Data-In PDUs or 1300 command PDUs.
     */
    private static final int BATCH = 64 * 1024;

    /**
     * A Data-In segment at least this long whose bytes have not all arrived yet is read from the socket straight into
     * the command's buffer ({@link Placement}) instead of through the receive buffer: one copy of the data fewer,
     * which is most of the client's CPU on large reads. Smaller ones batch better in the buffer.
     */
    static final int DIRECT_MIN = 32 * 1024;

    /**
     * True after a Data-In of at least {@link #DIRECT_MIN} bytes (reader only): large transfers are under way, so the
     * next read takes only the next frame's BHS (and header digest), not as much as the buffer holds. A large read
     * into the receive buffer would take in the next segment's data too, and that data would then be copied into its
     * command's buffer instead of being read there; with the BHS alone, {@link #place} reads the whole segment
     * straight into the command's buffer, and takes the BHS after it in the same {@code readv}. Any other frame ends
     * it: small PDUs batch in the buffer again.
     */
    private boolean expectLarge;
    /** {@code readv} vector of {@link #place}: the rest of the segment, then {@link #recvHead}. */
    private final ByteBuffer[] scatter = new ByteBuffer[2];
    /** A view of the start of {@link #recv} (renewed with it), where the padding and the next BHS are read. */
    private ByteBuffer recvHead;
    /**
     * Non-blocking only (reader): the last read returned less than it asked for, so the socket held nothing more at
     * that moment, and a read now would most likely find nothing ({@code EAGAIN}): the next read of a frame's rest
     * waits in the selector first, one syscall instead of two (a selector is level-triggered: bytes that came in
     * between make the wait return at once). At 1 MiB and queue depth 1, polled, that was about one read per I/O.
     */
    private boolean drained;

    /**
     * Where a Data-In segment's bytes belong (the reader's view of the command buffers): {@link #begin} returns false
     * for an ITT that is not a live read or a range outside its buffer (the frame then takes the ordinary path and
     * the handler reports it); after true, {@link #target}/{@link #targetAt} name the bytes, held until {@link #end}.
     */
    interface Placement {
        boolean begin(int itt, long bufferOffset, int length);

        ByteBuffer target();

        int targetAt();

        void end();
    }

    /** For {@link Selector#select(Consumer, long)}: readiness is all a wait needs, the keys are not looked at. */
    private static final Consumer<SelectionKey> READY = k -> { };

    private final SocketChannel sc;
    /**
     * Null while blocking (login, discovery, a session nobody polled); see {@link #nonBlocking()}. Volatile: a sender
     * whose write found the socket full reads it without the receive lock.
     */
    private volatile Selector readSelector;
    private volatile Selector writeSelector;
    private Placement placement;
    /** The BHS of a frame whose data went straight to its command buffer ({@link #placed()}). */
    private final ByteBuffer placedHeader = ByteBuffer.allocate(Bhs.LENGTH);
    private boolean placed;
    /** The socket's stream, used for reads while a read timeout is set (a channel read has no timeout). */
    private final InputStream timedIn;
    private int readTimeoutMillis;
    private byte[] timedScratch;
    private PduEncoder encoder = new PduEncoder(false, false);
    private PduDecoder decoder;
    private final Digest digest = new Digest();
    private boolean headerDigest;
    private boolean dataDigest;
    /** Where the current frame starts in {@link #recv}, where its data segment starts and how long that is. */
    private int frameAt;
    private int hotDataAt;
    private int hotDataLength;
    private DecodeResult decoded;
    private ByteBuffer recv;
    /** Unconsumed received bytes are [rxStart, rxEnd) of {@link #recv}; the current frame ends at rxStart. */
    private int rxStart;
    private int rxEnd;
    private ByteBuffer send;
    /** Bytes [0, sendEnd) of {@link #send} are encoded and not yet written. */
    private int sendEnd;

    private PduChannel(SocketChannel sc, int loginSegment) throws IOException {
        this.sc = sc;
        this.timedIn = sc.socket().getInputStream();
        // RFC 7143 §13.12: during login the default MaxRecvDataSegmentLength of 8192 applies to both sides.
        this.decoder = PduDecoder.forInitiator(false, false, loginSegment);
        receiveBuffer(ByteBuffer.allocateDirect(OVERHEAD + loginSegment + BATCH));
        this.send = ByteBuffer.allocateDirect(OVERHEAD + loginSegment + BATCH);
    }

    /** Connects with a timeout; reads time out after {@code readTimeoutMillis} until {@link #fullFeature}. */
    static PduChannel connect(InetSocketAddress address, int timeoutMillis) throws IOException {
        SocketChannel sc = SocketChannel.open();
        try {
            sc.setOption(StandardSocketOptions.TCP_NODELAY, true);
            sc.socket().connect(address, timeoutMillis);
            PduChannel ch = new PduChannel(sc, 8192);
            ch.readTimeout(timeoutMillis);
            return ch;
        } catch (IOException | RuntimeException e) {
            sc.close();
            throw e;
        }
    }

    /**
     * Switches to the settled digests and segment lengths (RFC 7143 §13.1, §13.12): {@code maxRecv} is what we
     * declared, {@code maxSend} what the target declared. Reads block without a timeout from here on. Bytes already
     * received (a PDU the target sent right after the last Login Response) move to the new buffer.
     */
    void fullFeature(boolean headerDigest, boolean dataDigest, int maxRecv, int maxSend) throws IOException {
        flush();
        encoder = new PduEncoder(headerDigest, dataDigest);
        decoder = PduDecoder.forInitiator(headerDigest, dataDigest, maxRecv);
        this.headerDigest = headerDigest;
        this.dataDigest = dataDigest;
        ByteBuffer r = ByteBuffer.allocateDirect(OVERHEAD + maxRecv + BATCH);
        r.put(0, recv, rxStart, rxEnd - rxStart);
        rxEnd -= rxStart;
        rxStart = 0;
        receiveBuffer(r);
        send = ByteBuffer.allocateDirect(OVERHEAD + maxSend + BATCH);
        readTimeout(0);
    }

    private void receiveBuffer(ByteBuffer r) {
        recv = r;
        recvHead = r.duplicate();
    }

    /** Lets large Data-In segments go straight to their command buffers (full feature phase, no data digest). */
    void placement(Placement p) {
        this.placement = p;
    }

    /**
     * Makes the channel non-blocking for good (full feature phase, once a thread polls; no read timeout any more; the
     * caller is the only reader, and senders may be writing: the JDK orders the switch with both): reads and
     * writes that find nothing to do wait in a selector, and {@link #readNow}/{@link #awaitReadable} let the holder
     * of the owner's receive lock read without blocking at a frame boundary.
     */
    void nonBlocking() throws IOException {
        if (readTimeoutMillis > 0) {
            throw new IllegalStateException("a channel with a read timeout stays blocking");
        }
        Selector r = Selector.open();
        Selector w = null;
        try {
            w = Selector.open();
            sc.configureBlocking(false);
            sc.register(r, SelectionKey.OP_READ);
            sc.register(w, SelectionKey.OP_WRITE);
        } catch (IOException | RuntimeException e) {
            r.close();
            if (w != null) {
                w.close();
            }
            throw e;
        }
        writeSelector = w;
        readSelector = r;
    }

    /** Bytes received and not yet consumed: the start of the next frame, or nothing (0). */
    int buffered() {
        return rxEnd - rxStart;
    }

    /**
     * One read of whatever the socket holds now, without waiting (non-blocking channels only; call with nothing
     * {@link #buffered()}): the bytes read, 0 when there were none. The end of the stream is an {@link EOFException}.
     */
    int readNow() throws IOException {
        rxStart = rxEnd = 0;
        int got = channelReadOnce(expectLarge ? Bhs.LENGTH + (headerDigest ? Codes.DIGEST_LENGTH : 0) : 0);
        if (got < 0) {
            throw new EOFException("connection closed by the target");
        }
        rxEnd = got;
        return got;
    }

    /**
     * Waits until the socket is readable, up to {@code millis} (0: without a limit) or until {@link #wakeupReader}:
     * true when it is readable. Non-blocking channels only, by the holder of the owner's receive lock.
     */
    boolean awaitReadable(long millis) throws IOException {
        drained = false;
        try {
            return readSelector.select(READY, millis) > 0;
        } catch (ClosedSelectorException e) {
            throw new ClosedChannelException();
        }
    }

    /** Makes a thread in {@link #awaitReadable} (or the next one to call it) return at once. */
    void wakeupReader() {
        Selector r = readSelector;
        if (r != null) {
            r.wakeup();
        }
    }

    private void awaitWritable() throws IOException {
        try {
            writeSelector.select(READY, 0);
        } catch (ClosedSelectorException e) {
            throw new ClosedChannelException();
        }
    }

    /** Bounds each read from now on (0: block without a timeout), for short request/response sessions. */
    void readTimeout(long millis) throws IOException {
        if (millis > 0 && readSelector != null) {
            throw new IllegalStateException("a non-blocking channel has no read timeout");
        }
        readTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, millis);
        sc.socket().setSoTimeout(readTimeoutMillis);
    }

    /** Encodes {@code pdu} after anything pending and writes it all. Not thread-safe: the caller holds the send lock. */
    void send(Pdu pdu) throws IOException {
        int n = encoder.encodedLength(pdu);
        if (sendEnd + n > send.capacity()) {
            flush();
            if (n > send.capacity()) {
                send = ByteBuffer.allocateDirect(n);
            }
        }
        send.limit(send.capacity()).position(sendEnd);
        encoder.encode(pdu, send);
        sendEnd = send.position();
        flush();
    }

    /**
     * Starts a hot frame with a data segment of {@code dataLength} bytes (at most the target's
     * MaxRecvDataSegmentLength): returns the index in {@link #sendBuffer()} where its BHS goes, after the frames
     * pending, writing those first when the new frame would not fit behind them.
     */
    int beginHot(int dataLength) throws IOException {
        int need = encoder.headerLength(0) + encoder.dataLength(dataLength);
        if (sendEnd + need > send.capacity()) {
            flush();
        }
        return sendEnd;
    }

    /**
     * Ends the hot frame whose BHS is at {@code base} (see {@link #beginHot}): adds the header digest and
     * {@code length} bytes of {@code src} from absolute index {@code from} as the data segment; writes everything
     * pending when {@code flush}. Allocates nothing. Not thread-safe: the caller holds the send lock.
     */
    void sendHot(int base, ByteBuffer src, int from, int length, boolean flush) throws IOException {
        int end = encoder.sealHeader(send, base, 0);
        send.limit(send.capacity()).position(end);
        encoder.appendData(send, src, from, length);
        sendEnd = send.position();
        if (flush) {
            flush();
        }
    }

    /** Writes the frames pending (a no-op when there are none). */
    void flush() throws IOException {
        if (sendEnd == 0) {
            return;
        }
        send.limit(sendEnd).position(0);
        try {
            while (send.hasRemaining()) {
                if (sc.write(send) == 0 && writeSelector != null) {
                    awaitWritable();   // the socket's send buffer is full: wait for room, do not spin
                }
            }
        } finally {
            sendEnd = 0;
            send.clear();
        }
    }

    /** True while frames wait in the send buffer for a {@link #flush}. */
    boolean pending() {
        return sendEnd != 0;
    }

    /** The send buffer, for writing a BHS at the index {@link #beginHot} returned. */
    ByteBuffer sendBuffer() {
        return send;
    }

    /**
     * Reads and decodes the next PDU: a {@link Pdu} or a {@link io.hostwide.iscsi.pdu.DecodeError}. The end of the
     * stream is an {@link EOFException}.
     */
    DecodeResult receive() throws IOException {
        if (!next()) {
            return decoded;
        }
        recv.limit(rxStart);
        try {
            return decoder.decode(recv, frameAt);
        } finally {
            recv.limit(recv.capacity());
        }
    }

    /**
     * The reader's hot path: takes the next frame and returns true when it is a Data-In or SCSI Response without AHS
     * whose digests check out — its BHS is then at {@link #frameAt()} of {@link #frame()} and its data segment at
     * {@link #hotDataAt()}, valid until the next read; nothing is allocated. Otherwise returns false and
     * {@link #decoded()} is the decoded PDU or error.
     */
    boolean next() throws IOException {
        placed = false;
        int rest = readFrame();
        if (placed) {
            expectLarge = true;
            return true;
        }
        expectLarge = false;
        if (rest < 0) {
            decoded = decoder.oversize(recv, frameAt);
            return false;
        }
        if (hot()) {
            expectLarge = hotDataLength >= DIRECT_MIN
                    && (recv.get(frameAt) & Bhs.OPCODE_MASK) == Opcode.SCSI_DATA_IN.code;
            return true;
        }
        recv.limit(rxStart);
        try {
            decoded = decoder.decode(recv, frameAt);
        } finally {
            recv.limit(recv.capacity());
        }
        return false;
    }

    ByteBuffer frame() {
        return placed ? placedHeader : recv;
    }

    int frameAt() {
        return placed ? 0 : frameAt;
    }

    /** True when the current hot frame's data is already in its command buffer (nothing at {@link #hotDataAt}). */
    boolean placed() {
        return placed;
    }

    int hotDataAt() {
        return hotDataAt;
    }

    int hotDataLength() {
        return hotDataLength;
    }

    DecodeResult decoded() {
        return decoded;
    }

    // RFC 7143 §11.7, §11.4, with the digests of §13.1; anything else goes through the full decoder.
    private boolean hot() {
        int f = frameAt;
        int op = recv.get(f) & Bhs.OPCODE_MASK;
        if ((op != Opcode.SCSI_DATA_IN.code && op != Opcode.SCSI_RESPONSE.code) || recv.get(f + Bhs.TOTAL_AHS_LENGTH) != 0) {
            return false;
        }
        int dsl = (recv.get(f + Bhs.DATA_SEGMENT_LENGTH) & 0xff) << 16
                | (recv.get(f + Bhs.DATA_SEGMENT_LENGTH + 1) & 0xff) << 8
                | (recv.get(f + Bhs.DATA_SEGMENT_LENGTH + 2) & 0xff);
        int at = f + Bhs.LENGTH;
        if (headerDigest) {
            if (digest.compute(recv, f, Bhs.LENGTH) != Digest.get(recv, at)) {
                return false;   // the decoder reports it
            }
            at += Codes.DIGEST_LENGTH;
        }
        if (dataDigest && dsl > 0) {
            int padded = (dsl + 3) & ~3;
            if (digest.compute(recv, at, padded) != Digest.get(recv, at + padded)) {
                return false;
            }
        }
        hotDataAt = at;
        hotDataLength = dsl;
        return true;
    }

    /**
     * Makes the next whole frame the current one (at {@link #frameAt}); returns the bytes after its BHS, or -1 when it
     * is too large (then only its BHS is buffered).
     */
    private int readFrame() throws IOException {
        fill(Bhs.LENGTH);
        int rest = decoder.remainder(recv, rxStart);
        if (rest == PduDecoder.FRAME_TOO_LARGE) {
            frameAt = rxStart;
            rxStart += Bhs.LENGTH;
            return -1;
        }
        if (placement != null && rest >= DIRECT_MIN && rxEnd - rxStart < Bhs.LENGTH + rest && place()) {
            return rest;
        }
        if (Bhs.LENGTH + rest > recv.capacity()) {   // only a large AHS can get here; bounded by OVERHEAD
            ByteBuffer bigger = ByteBuffer.allocateDirect(Bhs.LENGTH + rest + BATCH);
            bigger.put(0, recv, rxStart, rxEnd - rxStart);
            rxEnd -= rxStart;
            rxStart = 0;
            receiveBuffer(bigger);
        }
        fill(Bhs.LENGTH + rest);
        frameAt = rxStart;
        rxStart += Bhs.LENGTH + rest;
        return rest;
    }

    /**
     * A Data-In whose data has not all arrived: its data goes from the socket straight into the command's buffer
     * (what is already buffered is copied there first). Returns false, consuming nothing, when the frame is not such
     * a Data-In or the placement refuses it. With a data digest the ordinary path checks the digest.
     */
    private boolean place() throws IOException {
        if (dataDigest || readTimeoutMillis > 0) {
            return false;
        }
        int f = rxStart;
        if ((recv.get(f) & Bhs.OPCODE_MASK) != Opcode.SCSI_DATA_IN.code || recv.get(f + Bhs.TOTAL_AHS_LENGTH) != 0) {
            return false;
        }
        int dsl = (recv.get(f + Bhs.DATA_SEGMENT_LENGTH) & 0xff) << 16
                | (recv.get(f + Bhs.DATA_SEGMENT_LENGTH + 1) & 0xff) << 8
                | (recv.get(f + Bhs.DATA_SEGMENT_LENGTH + 2) & 0xff);
        int header = Bhs.LENGTH + (headerDigest ? Codes.DIGEST_LENGTH : 0);
        fill(header);
        f = rxStart;   // fill may have moved the frame to the front
        if (headerDigest && digest.compute(recv, f, Bhs.LENGTH) != Digest.get(recv, f + Bhs.LENGTH)) {
            return false;   // the decoder reports it
        }
        if (rxEnd - (f + header) >= dsl) {
            return false;   // only its padding is missing: the ordinary path finishes it
        }
        int itt = recv.getInt(f + Bhs.INITIATOR_TASK_TAG);
        if (!placement.begin(itt, recv.getInt(f + Bhs.Data.BUFFER_OFFSET) & 0xffff_ffffL, dsl)) {
            return false;
        }
        int pad = ((dsl + 3) & ~3) - dsl;   // RFC 7143 §11.2.4: the segment is padded to a word
        try {
            ByteBuffer dst = placement.target();
            int at = placement.targetAt();
            int have = Math.min(dsl, rxEnd - (f + header));
            dst.put(at, recv, f + header, have);
            placedHeader.put(0, recv, f, Bhs.LENGTH);
            // Everything buffered belonged to this segment (it had not all arrived): the buffer is empty now.
            rxStart = rxEnd = 0;
            ByteBuffer rest = dst.slice(at + have, dsl - have);
            // One readv per wait: the segment's bytes into the command's buffer, then its padding and the next BHS
            // (a SCSI Response's whole PDU, or the next Data-In's header) into the receive buffer.
            recvHead.limit(pad + header).position(0);
            scatter[0] = rest;
            scatter[1] = recvHead;
            try {
                while (rest.hasRemaining()) {
                    long got = sc.read(scatter);
                    if (got < 0) {
                        throw new EOFException("connection closed by the target");
                    }
                    if (rest.hasRemaining() && readSelector != null) {
                        // Mid-frame, and a short read drained the socket (a non-blocking read returns less than
                        // asked only then): the rest of the segment is on its way, wait for it before reading.
                        awaitReadable(0);
                    }
                }
            } finally {
                scatter[0] = null;
                rxEnd = recvHead.position();
            }
            // The segment came, but not all of the padding and next header behind it: the socket is drained.
            drained = readSelector != null && recvHead.hasRemaining();
        } finally {
            placement.end();
        }
        if (pad > 0) {
            fill(pad);
            rxStart += pad;
        }
        hotDataAt = -1;
        hotDataLength = dsl;
        placed = true;
        return true;
    }

    /** Reads until at least {@code n} unconsumed bytes are buffered, moving them to the front when the tail is short. */
    private void fill(int n) throws IOException {
        if (rxEnd - rxStart >= n) {
            return;
        }
        if (rxStart + n > recv.capacity()) {
            recv.limit(rxEnd).position(rxStart);
            recv.compact();   // the source and destination may overlap: compact() is defined for that
            recv.clear();
            rxEnd -= rxStart;
            rxStart = 0;
        } else if (rxStart == rxEnd) {
            rxStart = rxEnd = 0;
        }
        while (rxEnd - rxStart < n) {
            int got = readTimeoutMillis > 0 ? timedRead() : channelRead(expectLarge ? n - (rxEnd - rxStart) : 0);
            if (got < 0) {
                throw new EOFException("connection closed by the target");
            }
            rxEnd += got;
        }
    }

    /**
     * A read for {@link #fill} of at most {@code max} bytes (0: as many as fit): waits (in the read selector when
     * non-blocking) until at least a byte came.
     */
    private int channelRead(int max) throws IOException {
        if (drained && readSelector != null) {
            awaitReadable(0);
        }
        for (;;) {
            int got = channelReadOnce(max);
            if (got != 0 || readSelector == null) {
                return got;
            }
            awaitReadable(0);
        }
    }

    private int channelReadOnce(int max) throws IOException {
        recv.limit(max > 0 ? Math.min(recv.capacity(), rxEnd + max) : recv.capacity()).position(rxEnd);
        try {
            int got = sc.read(recv);
            drained = readSelector != null && got >= 0 && recv.hasRemaining();
            return got;
        } finally {
            recv.clear();
        }
    }

    /** A read bounded by SO_TIMEOUT through the socket's stream (login and discovery only: not the fast path). */
    private int timedRead() throws IOException {
        int room = recv.capacity() - rxEnd;
        if (timedScratch == null || timedScratch.length < room) {
            timedScratch = new byte[room];
        }
        int got = timedIn.read(timedScratch, 0, room);
        if (got > 0) {
            recv.put(rxEnd, timedScratch, 0, got);
        }
        return got;
    }

    /** Closes the socket; a thread waiting in a selector returns (and then finds the channel closed). */
    @Override
    public void close() {
        try {
            sc.close();
        } catch (IOException e) {
            // closing a socket that is already broken: nothing more to release
        }
        for (Selector s : new Selector[] {readSelector, writeSelector}) {
            if (s != null) {
                try {
                    s.close();   // wakes a thread selecting on it, deregisters the channel: its fd closes now
                } catch (IOException e) {
                    // nothing left to release
                }
            }
        }
    }
}
