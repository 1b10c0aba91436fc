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
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;

/**
 * One TCP connection carrying PDUs with blocking I/O: the initiator's codec pair (RFC 7143 §11.2 framing) over a
 * socket. {@link #send} is called under the owner's send lock; {@link #receive} only from the one reader.
 * Receive frames are decoded in place: a decoded PDU's data is valid until the next {@link #receive}.
 */
final class PduChannel implements AutoCloseable {
    /** Room for a BHS, the largest AHS (255 words), a header digest, padding and a data digest. */
    private static final int OVERHEAD = Bhs.LENGTH + 255 * 4 + 2 * Codes.DIGEST_LENGTH + 4;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private PduEncoder encoder = new PduEncoder(false, false);
    private PduDecoder decoder;
    private final Digest digest = new Digest();
    private boolean headerDigest;
    private boolean dataDigest;
    /** The frame {@link #next} left as a hot view: where its data segment starts and how long it is. */
    private int hotDataAt;
    private int hotDataLength;
    private DecodeResult decoded;
    private ByteBuffer recv;
    private ByteBuffer send;

    private PduChannel(Socket socket, int loginSegment) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        // RFC 7143 §13.12: during login the default MaxRecvDataSegmentLength of 8192 applies to both sides.
        this.decoder = PduDecoder.forInitiator(false, false, loginSegment);
        this.recv = ByteBuffer.allocate(OVERHEAD + loginSegment);
        this.send = ByteBuffer.allocate(OVERHEAD + loginSegment);
    }

    /** Connects with a timeout; reads time out after {@code readTimeoutMillis} until {@link #fullFeature}. */
    static PduChannel connect(InetSocketAddress address, int timeoutMillis) throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(address, timeoutMillis);
            s.setSoTimeout(timeoutMillis);
            return new PduChannel(s, 8192);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * Switches to the settled digests and segment lengths (RFC 7143 §13.1, §13.12): {@code maxRecv} is what we
     * declared, {@code maxSend} what the target declared. Reads block without a timeout from here on.
     */
    void fullFeature(boolean headerDigest, boolean dataDigest, int maxRecv, int maxSend) throws IOException {
        encoder = new PduEncoder(headerDigest, dataDigest);
        decoder = PduDecoder.forInitiator(headerDigest, dataDigest, maxRecv);
        this.headerDigest = headerDigest;
        this.dataDigest = dataDigest;
        recv = ByteBuffer.allocate(OVERHEAD + maxRecv);
        send = ByteBuffer.allocate(OVERHEAD + maxSend);
        socket.setSoTimeout(0);
    }

    /** Bounds each read from now on (0: block without a timeout), for short request/response sessions. */
    void readTimeout(long millis) throws IOException {
        socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, millis));
    }

    /** Encodes and writes one PDU. Not thread-safe: the caller holds the connection's send lock. */
    void send(Pdu pdu) throws IOException {
        int n = encoder.encodedLength(pdu);
        if (n > send.capacity()) {
            send = ByteBuffer.allocate(n);
        }
        send.clear();
        encoder.encode(pdu, send);
        out.write(send.array(), 0, send.position());
    }

    /**
     * The hot path: the BHS is already in {@link #sendBuffer()} at 0 (written by {@link HotHeaders}); adds the header
     * digest and {@code length} bytes of {@code src} from absolute index {@code from} as the data segment, and
     * writes the PDU. Allocates nothing. Not thread-safe: the caller holds the connection's send lock.
     */
    void sendHot(ByteBuffer src, int from, int length) throws IOException {
        int end = encoder.sealHeader(send, 0, 0);
        send.position(end);
        encoder.appendData(send, src, from, length);
        out.write(send.array(), 0, send.position());
    }

    /** The send buffer with room for a BHS, digests and one data segment of the target's MaxRecvDataSegmentLength. */
    ByteBuffer sendBuffer() {
        return send.clear();
    }

    /**
     * Reads and decodes the next PDU: a {@link Pdu} or a {@link io.hostwide.iscsi.pdu.DecodeError}. The end of the
     * stream is an {@link EOFException}.
     */
    DecodeResult receive() throws IOException {
        return next() ? decoder.decode(recv, 0) : decoded;
    }

    /**
     * The reader's hot path: reads the next frame and returns true when it is a Data-In or SCSI Response without AHS
     * whose digests check out — its BHS is then at index 0 of {@link #frame()} and its data segment at
     * {@link #hotDataAt()}, valid until the next read; nothing is allocated. Otherwise returns false and
     * {@link #decoded()} is the decoded PDU or error.
     */
    boolean next() throws IOException {
        int rest = readFrame();
        if (rest < 0) {
            decoded = decoder.oversize(recv, 0);
            return false;
        }
        if (hot()) {
            return true;
        }
        recv.limit(Bhs.LENGTH + rest);
        decoded = decoder.decode(recv, 0);
        recv.limit(recv.capacity());
        return false;
    }

    ByteBuffer frame() {
        return recv;
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
        int op = recv.get(0) & Bhs.OPCODE_MASK;
        if ((op != Opcode.SCSI_DATA_IN.code && op != Opcode.SCSI_RESPONSE.code) || recv.get(Bhs.TOTAL_AHS_LENGTH) != 0) {
            return false;
        }
        int dsl = (recv.get(Bhs.DATA_SEGMENT_LENGTH) & 0xff) << 16 | (recv.get(Bhs.DATA_SEGMENT_LENGTH + 1) & 0xff) << 8
                | (recv.get(Bhs.DATA_SEGMENT_LENGTH + 2) & 0xff);
        int at = Bhs.LENGTH;
        if (headerDigest) {
            if (digest.compute(recv, 0, Bhs.LENGTH) != Digest.get(recv, at)) {
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

    /** Reads one whole frame into {@code recv} at 0; returns the bytes after the BHS, or -1 when it is too large. */
    private int readFrame() throws IOException {
        readFully(0, Bhs.LENGTH);
        int rest = decoder.remainder(recv, 0);
        if (rest == PduDecoder.FRAME_TOO_LARGE) {
            return -1;
        }
        if (Bhs.LENGTH + rest > recv.capacity()) {   // only a large AHS can get here; bounded by OVERHEAD
            ByteBuffer bigger = ByteBuffer.allocate(Bhs.LENGTH + rest);
            bigger.put(0, recv, 0, Bhs.LENGTH);
            recv = bigger;
        }
        readFully(Bhs.LENGTH, rest);
        return rest;
    }

    private void readFully(int at, int n) throws IOException {
        int got = in.readNBytes(recv.array(), at, n);
        if (got < n) {
            throw new EOFException("connection closed by the target");
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing a socket that is already broken: nothing more to release
        }
    }
}
