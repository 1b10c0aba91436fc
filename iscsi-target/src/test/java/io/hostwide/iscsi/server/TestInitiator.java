package io.hostwide.iscsi.server;

import io.hostwide.iscsi.pdu.DecodeResult;
import io.hostwide.iscsi.pdu.LoginRequest;
import io.hostwide.iscsi.pdu.LoginResponse;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.pdu.PduDecoder;
import io.hostwide.iscsi.pdu.PduEncoder;
import io.hostwide.iscsi.spec.Bhs;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/** A minimal initiator over TCP built from the codec, for end-to-end tests of the server. */
final class TestInitiator implements AutoCloseable {
    final SocketChannel ch;
    private PduEncoder enc = new PduEncoder(false, false);
    private PduDecoder dec = PduDecoder.forInitiator(false, false, 1 << 20);
    long isid = 0x400000000001L;
    int tsih;
    int cid;
    int cmdSn = 1;
    int expStatSn;
    int itt = 1;

    TestInitiator(InetSocketAddress a) throws IOException {
        ch = SocketChannel.open(a);
        ch.socket().setSoTimeout(5000);
    }

    /** Connects from {@code source} (e.g. 127.0.0.2: Linux routes all of 127/8 to loopback), for per-address tests. */
    TestInitiator(InetSocketAddress a, String source) throws IOException {
        ch = SocketChannel.open();
        ch.bind(new InetSocketAddress(source, 0));
        ch.connect(a);
        ch.socket().setSoTimeout(5000);
    }

    /** The bytes {@link #send} would write for {@code p}, for tests that write several PDUs at once. */
    ByteBuffer encoded(Pdu p) {
        ByteBuffer b = ByteBuffer.allocate(enc.encodedLength(p));
        enc.encode(p, b);
        return b.flip();
    }

    @Override
    public void close() throws IOException {
        ch.close();
    }

    void send(Pdu p) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(enc.encodedLength(p));
        enc.encode(p, b);
        b.flip();
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    DecodeResult receive() throws IOException {
        ByteBuffer h = ByteBuffer.allocate(Bhs.LENGTH);
        readFully(h);
        int rest = dec.remainder(h, 0);
        ByteBuffer f = ByteBuffer.allocate(Bhs.LENGTH + rest);
        f.put(h.flip());
        readFully(f);
        return dec.decode(f, 0);
    }

    private void readFully(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new IOException("connection closed by target");
            }
        }
    }

    /** Logs in straight to full feature phase with the given extra keys. */
    LoginResponse login(String target, String... keys) throws IOException {
        send(loginRequest(target, keys));
        return loggedIn((LoginResponse) receive());
    }

    /** The single Login Request (CSG 1, NSG 3, T) that {@link #login} sends. */
    LoginRequest loginRequest(String target, String... keys) {
        StringBuilder sb = new StringBuilder("InitiatorName=iqn.2026-12.io.hostwide:test\0");
        if (target != null) {
            sb.append("TargetName=").append(target).append('\0');
        } else {
            sb.append("SessionType=Discovery\0");
        }
        for (String k : keys) {
            sb.append(k).append('\0');
        }
        return new LoginRequest(true, false, 1, 3, 0, 0, isid, tsih, itt++, cid, cmdSn, 0,
                ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.UTF_8)));
    }

    /** Takes the session state (TSIH, StatSN, digests) from the final Login Response {@code r}. */
    LoginResponse loggedIn(LoginResponse r) {
        expStatSn = r.statSn() + 1;
        tsih = r.tsih();
        String text = StandardCharsets.UTF_8.decode(r.data().duplicate()).toString();
        boolean hd = text.contains("HeaderDigest=CRC32C");
        boolean dd = text.contains("DataDigest=CRC32C");
        enc = new PduEncoder(hd, dd);
        dec = PduDecoder.forInitiator(hd, dd, 1 << 20);
        return r;
    }
}
