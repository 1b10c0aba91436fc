package io.hostwide.iscsi.initiator;

import io.hostwide.iscsi.pdu.DecodeResult;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.pdu.PduDecoder;
import io.hostwide.iscsi.pdu.PduEncoder;
import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Codes;
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
        recv = ByteBuffer.allocate(OVERHEAD + maxRecv);
        send = ByteBuffer.allocate(OVERHEAD + maxSend);
        socket.setSoTimeout(0);
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
     * Reads and decodes the next PDU: a {@link Pdu} or a {@link io.hostwide.iscsi.pdu.DecodeError}. The end of the
     * stream is an {@link EOFException}.
     */
    DecodeResult receive() throws IOException {
        readFully(0, Bhs.LENGTH);
        int rest = decoder.remainder(recv, 0);
        if (rest == PduDecoder.FRAME_TOO_LARGE) {
            return decoder.oversize(recv, 0);
        }
        if (Bhs.LENGTH + rest > recv.capacity()) {   // only a large AHS can get here; bounded by OVERHEAD
            ByteBuffer bigger = ByteBuffer.allocate(Bhs.LENGTH + rest);
            bigger.put(0, recv, 0, Bhs.LENGTH);
            recv = bigger;
        }
        readFully(Bhs.LENGTH, rest);
        recv.limit(Bhs.LENGTH + rest);
        DecodeResult r = decoder.decode(recv, 0);
        recv.limit(recv.capacity());
        return r;
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
