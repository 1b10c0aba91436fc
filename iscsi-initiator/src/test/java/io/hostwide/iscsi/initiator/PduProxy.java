package io.hostwide.iscsi.initiator;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy between the initiator and a test target that frames the target's PDUs (no digests) so a test can drop
 * or corrupt chosen ones, freeze the current connections (a target that stops answering), or cut them. New
 * connections after a freeze pass normally, so a relogin gets through.
 */
final class PduProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final List<Link> links = new CopyOnWriteArrayList<>();
    /** One-shot actions on target PDUs by opcode: how many of the next ones to drop or corrupt. */
    private final AtomicInteger[] drop = new AtomicInteger[64];
    private final AtomicInteger[] corrupt = new AtomicInteger[64];
    /** One-shot header rewrites by opcode (applied to the next matching target PDU). */
    private final java.util.concurrent.ConcurrentHashMap<Integer, java.util.function.Consumer<java.nio.ByteBuffer>>
            mutate = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile boolean closed;
    /** When above 0, the target's bytes go out in pieces of this size with a pause after each (see {@link #trickle}). */
    private volatile int trickle;

    PduProxy(int targetPort) throws IOException {
        this.target = new InetSocketAddress("127.0.0.1", targetPort);
        this.listener = new ServerSocket(0);
        for (int i = 0; i < 64; i++) {
            drop[i] = new AtomicInteger();
            corrupt[i] = new AtomicInteger();
        }
        Thread t = new Thread(this::accept, "proxy-accept");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Drops the next {@code n} target PDUs with this opcode (0x21 SCSI Response, 0x22 TMF Response, ...). */
    void dropNext(int opcode, int n) {
        drop[opcode].set(n);
    }

    /** Gives the next target PDU with this opcode an initiator-only opcode (a malformed PDU). */
    void corruptNext(int opcode) {
        corrupt[opcode].set(1);
    }

    /** Rewrites the 48-byte header of the next target PDU with this opcode (framing fields must stay). */
    void mutateNext(int opcode, java.util.function.Consumer<java.nio.ByteBuffer> m) {
        mutate.put(opcode, m);
    }

    /**
     * From now on the target's bytes reach the initiator in writes of {@code chunk} bytes, each followed by a pause of
     * about 50 us, so its reads come back short anywhere: inside a BHS, inside a data segment, between the two (0:
     * whole PDUs again).
     */
    void trickle(int chunk) {
        trickle = chunk;
    }

    /** The connections open now stop carrying anything, in both directions, but stay open. */
    void freezeCurrent() {
        for (Link l : links) {
            l.frozen = true;
        }
    }

    private void accept() {
        while (!closed) {
            try {
                Socket in = listener.accept();
                Socket out = new Socket();
                out.connect(target, 2000);
                in.setTcpNoDelay(true);
                out.setTcpNoDelay(true);
                Link l = new Link(in, out);
                links.add(l);
                l.start();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        for (Link l : links) {
            l.close();
        }
    }

    private final class Link {
        final Socket initiator;
        final Socket targetSide;
        volatile boolean frozen;

        Link(Socket initiator, Socket targetSide) {
            this.initiator = initiator;
            this.targetSide = targetSide;
        }

        void start() {
            Thread up = new Thread(this::upstream, "proxy-up");
            Thread down = new Thread(this::downstream, "proxy-down");
            up.setDaemon(true);
            down.setDaemon(true);
            up.start();
            down.start();
        }

        private void upstream() {
            byte[] b = new byte[65536];
            try (InputStream in = initiator.getInputStream(); OutputStream out = targetSide.getOutputStream()) {
                for (int n; (n = in.read(b)) >= 0; ) {
                    if (!frozen) {
                        out.write(b, 0, n);
                    }
                }
            } catch (IOException e) {
                // one side closed
            }
            close();
        }

        private void downstream() {
            try (InputStream in = targetSide.getInputStream(); OutputStream out = initiator.getOutputStream()) {
                byte[] h = new byte[48];
                while (in.readNBytes(h, 0, 48) == 48) {
                    int ahs = (h[4] & 0xff) * 4;
                    int dsl = (h[5] & 0xff) << 16 | (h[6] & 0xff) << 8 | (h[7] & 0xff);
                    byte[] rest = in.readNBytes(ahs + ((dsl + 3) & ~3));
                    int op = h[0] & 0x3f;
                    if (frozen || take(drop[op])) {
                        continue;
                    }
                    if (take(corrupt[op])) {
                        h[0] = 0x05;   // SCSI Data-Out: an initiator opcode no target may send
                    }
                    java.util.function.Consumer<java.nio.ByteBuffer> m = mutate.remove(op);
                    if (m != null) {
                        m.accept(java.nio.ByteBuffer.wrap(h));
                    }
                    int chunk = trickle;
                    if (chunk > 0) {
                        byte[] pdu = new byte[48 + rest.length];
                        System.arraycopy(h, 0, pdu, 0, 48);
                        System.arraycopy(rest, 0, pdu, 48, rest.length);
                        for (int at = 0; at < pdu.length; at += chunk) {
                            out.write(pdu, at, Math.min(chunk, pdu.length - at));
                            out.flush();
                            Thread.sleep(0, 50_000);
                        }
                    } else {
                        out.write(h);
                        out.write(rest);
                    }
                }
            } catch (IOException e) {
                // one side closed
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            close();
        }

        private boolean take(AtomicInteger n) {
            for (;;) {
                int v = n.get();
                if (v == 0) {
                    return false;
                }
                if (n.compareAndSet(v, v - 1)) {
                    return true;
                }
            }
        }

        void close() {
            try {
                initiator.close();
            } catch (IOException e) {
                // already closed
            }
            try {
                targetSide.close();
            } catch (IOException e) {
                // already closed
            }
        }
    }
}
