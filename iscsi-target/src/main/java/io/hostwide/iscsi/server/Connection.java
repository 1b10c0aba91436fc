package io.hostwide.iscsi.server;

import io.hostwide.iscsi.login.Admission;
import io.hostwide.iscsi.login.ChapPolicy;
import io.hostwide.iscsi.login.LoginEnvironment;
import io.hostwide.iscsi.login.LoginStateMachine;
import io.hostwide.iscsi.login.LoginStep;
import io.hostwide.iscsi.login.LoginTarget;
import io.hostwide.iscsi.login.NegotiatedParameters;
import io.hostwide.iscsi.login.NegotiationPolicy;
import io.hostwide.iscsi.login.SessionRequest;
import io.hostwide.iscsi.pdu.DecodeError;
import io.hostwide.iscsi.pdu.DecodeResult;
import io.hostwide.iscsi.pdu.HotPdu;
import io.hostwide.iscsi.pdu.LoginRequest;
import io.hostwide.iscsi.pdu.Pdu;
import io.hostwide.iscsi.pdu.PduDecoder;
import io.hostwide.iscsi.pdu.Reject;
import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.LoginStatus;
import io.hostwide.iscsi.spec.RejectReason;
import io.hostwide.tcm.spi.CompletionBatch;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One TCP connection: a platform thread reads with blocking I/O, decodes every complete PDU in what arrived,
 * handles each (RAM-backed commands complete right there), then flushes all responses with one write before it
 * blocks again. Login first (RFC 7143 §6), then the full feature phase ({@link FullFeature}).
 *
 * <p>Blocking reads on a thread per connection suit a 2-core machine: no selector wake-ups or hand-offs between
 * threads, the kernel wakes the reader exactly when bytes arrive, and each wake-up handles a whole batch. Before
 * blocking, the reader polls briefly ({@link ReadSpin}) so a queue-depth-1 initiator's next command is taken
 * without a scheduler wake-up.
 *
 * <p>Until it has logged in, a connection has proved nothing, so it costs little: two {@link #LOGIN_BUFFER}-byte
 * buffers from the server's login pool, a thread with a {@link #LOGIN_STACK}-byte stack, no read polling, and a place
 * in the server's {@link LoginGate}. Entering the full feature phase, the login thread moves what it has not yet
 * handled into full-size pooled buffers, gives the small ones and its gate place back, and hands the connection to
 * a reader thread with the JVM's normal stack; it then ends.
 */
final class Connection implements LoginEnvironment {
    static final Logger LOG = Logger.getLogger(Connection.class.getName());
    /** -Dhostwide.iscsi.trace=true logs every full-feature PDU received (debugging aid; off by default). */
    static final boolean TRACE = Boolean.getBoolean("hostwide.iscsi.trace");
    private static final SecureRandom RANDOM = new SecureRandom();
    /**
     * Receive and send buffer size before the full feature phase: the largest login PDU is 48 (BHS) + 1020 (AHS)
     * + 8192 (data, RFC 7143 §13.12: login PDUs carry at most 8192 bytes whatever is declared) = 9260 bytes, and
     * digests do not start before the full feature phase (§13.1); one whole PDU must fit, so 16 KiB.
     */
    static final int LOGIN_BUFFER = 16 * 1024;
    /**
     * Stack of the login thread: login is shallow (decode, text negotiation, CHAP); the JVM rounds a size below its
     * minimum up to it. Only the touched part is resident either way, but a small reservation bounds what a flood of
     * connections can map.
     */
    static final long LOGIN_STACK = 256 * 1024;

    final IscsiTargetServer server;
    private final SocketChannel channel;
    private final InetAddress from;
    /** The portal (as bound) this connection was accepted on. */
    private final InetSocketAddress portal;
    /** Written by the login thread before it starts the full-feature reader, read by the current reader only. */
    private ByteBuffer recv;
    private ByteBuffer send;
    /** The full-size buffers taken when the login was admitted, until the hand-over uses them (login thread). */
    private ByteBuffer reservedRecv;
    private ByteBuffer reservedSend;
    /** Whether recv and send are the full-size ones (same threads as they). */
    private boolean fullSize;
    /** True while this connection holds a place in the server's {@link LoginGate}. */
    private final AtomicBoolean loginPlace = new AtomicBoolean(true);
    final ResponseWriter writer;
    /** {@code writer.flush}, one instance, so that a completion batch registers it once ({@link #completed}). */
    private final Runnable flushWriter;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean cleaned = new AtomicBoolean();
    private final long connectedNanos = System.nanoTime();
    private volatile Thread reader;
    /** Whether read polling has been paying on this connection; the reader thread's only. */
    private final ReadSpin.State spinState = new ReadSpin.State();
    private PduDecoder decoder = PduDecoder.forTarget(false, false, LoginStateMachineLimits.LOGIN_SEGMENT);
    private LoginStateMachine login;
    private ExportedTarget loginTarget;
    private volatile IscsiSession session;
    private volatile FullFeature ffp;
    /** Set before the final Login Response goes out: the initiator may act on it before {@link #ffp} is set. */
    private volatile boolean admitted;
    private int cid;
    private final HotPdu hot = new HotPdu();
    final Keepalive keepalive;

    /** A connection from {@code from}, admitted by the server's {@link LoginGate} (whose place it now holds). */
    Connection(IscsiTargetServer server, SocketChannel channel, InetAddress from, InetSocketAddress portal) {
        this.server = server;
        this.channel = channel;
        this.from = from;
        this.portal = portal;
        this.recv = server.loginPool.take();
        this.send = server.loginPool.take();
        this.writer = new ResponseWriter(channel, send);
        this.flushWriter = writer::flush;
        this.login = new LoginStateMachine(this, RANDOM.nextInt(), RANDOM);
        this.keepalive = new Keepalive(server.nopInIntervalNanos(), server.nopInTimeoutNanos());
    }

    void start() {
        Thread t = new Thread(null, this::runLogin, "iscsi-login-" + channel.socket().getRemoteSocketAddress(),
                LOGIN_STACK);
        t.setDaemon(true);
        reader = t;
        try {
            t.start();
        } catch (OutOfMemoryError e) { // "unable to create native thread": this connection goes, the server stays
            reader = null; // so that close() cleans up: no reader ever ran
            LOG.log(Level.WARNING, "no thread for a new connection; closing it", e);
            close("no thread");
        }
    }

    /** Receive and send buffer capacities now (tests: small before login, full size after). */
    int recvCapacity() {
        return recv.capacity();
    }

    int sendCapacity() {
        return send.capacity();
    }

    int cid() {
        return cid;
    }

    IscsiSession session() {
        return session;
    }

    FullFeature fullFeature() {
        return ffp;
    }

    /** Whether login succeeded: true from just before the final Login Response is sent (so before fullFeature()). */
    boolean admitted() {
        return admitted;
    }

    /** The portal (as bound) this connection was accepted on. */
    InetSocketAddress portal() {
        return portal;
    }

    /** The address the initiator reached (a wildcard portal's concrete address), or null once closed. */
    InetSocketAddress localAddress() {
        try {
            return (InetSocketAddress) channel.getLocalAddress();
        } catch (IOException e) {
            return null;
        }
    }

    boolean onReaderThread() {
        return Thread.currentThread() == reader;
    }

    boolean isClosed() {
        return closed.get();
    }

    /** The login thread: reads until the login fails or ends in the full feature phase, then hands over. */
    private void runLogin() {
        boolean handedOver = false;
        try {
            handedOver = read(true) && handOver();
        } finally {
            if (!handedOver) {
                end();
            }
        }
    }

    /** The full feature phase's reader, started by the login thread. */
    private void runFullFeature() {
        try {
            read(false);
        } finally {
            end();
        }
    }

    /**
     * The read loop: handles what the receive buffer holds (a new reader first handles what its predecessor left),
     * flushes the responses, then reads. Returns true when the login phase ended in the full feature phase (only
     * with {@code login}), false when the connection is done.
     */
    private boolean read(boolean login) {
        try {
            InputStream probe = login ? null : channel.socket().getInputStream();
            while (!closed.get()) {
                recv.flip();
                drain();
                recv.compact();
                if (login && ffp != null) {
                    return true;
                }
                writer.flush();
                if (!login) {
                    server.readSpin.await(probe, spinState); // a connection that has not logged in is not worth a core's time
                }
                if (writer.broken() || channel.read(recv) < 0) {
                    break;
                }
                keepalive.heard(System.nanoTime());
            }
        } catch (IOException e) {
            LOG.log(Level.FINE, "connection read ended", e);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "connection failed", e);
        } catch (OutOfMemoryError e) { // outside a command (those fail alone): this connection goes, the server stays
            LOG.log(Level.WARNING, "out of memory on a connection's reader; closing it", e);
        }
        return false;
    }

    /**
     * On the login thread, once the final Login Response is out: full-size buffers replace the login ones (the bytes
     * not handled yet move along), and a reader with a normal stack takes over. False when that reader cannot be
     * started (no native thread): the login thread then ends the connection.
     */
    private boolean handOver() {
        ByteBuffer full = reservedRecv;
        ByteBuffer fullSend = reservedSend;
        reservedRecv = null;
        reservedSend = null;
        ByteBuffer small = recv;
        small.flip();
        full.put(small); // a well-behaved initiator sent nothing after its last Login Request, but nothing is lost
        recv = full;
        server.loginPool.give(small);
        server.loginPool.give(writer.useBuffer(fullSend));
        send = fullSend;
        fullSize = true;
        leaveLoginGate(); // after the small buffers are back: the login pool never needs more than the gate admits
        Thread t = new Thread(this::runFullFeature, "iscsi-conn-" + channel.socket().getRemoteSocketAddress());
        t.setDaemon(true);
        reader = t; // before start: the new thread is the reader from its first instruction
        try {
            t.start();
            return true;
        } catch (OutOfMemoryError e) { // "unable to create native thread": refuse this connection, keep serving
            reader = Thread.currentThread();
            LOG.log(Level.WARNING, "no thread for a logged-in connection; closing it", e);
            return false;
        }
    }

    private void end() {
        writer.flush();
        close("reader ended");
        cleanup();
    }

    /** Decodes and handles every complete PDU in the receive buffer. */
    private void drain() {
        while (!closed.get() && recv.remaining() >= Bhs.LENGTH) {
            int at = recv.position();
            int rest = decoder.remainder(recv, at);
            if (rest == PduDecoder.FRAME_TOO_LARGE) {
                onDecodeError(decoder.oversize(recv, at));
                return;
            }
            if (recv.remaining() < Bhs.LENGTH + rest) {
                return; // the rest of this PDU has not arrived yet
            }
            FullFeature f = ffp;
            if (f != null && !TRACE && decoder.hot(recv, at, hot)) {
                f.onHot(hot); // SCSI Command / Data-Out straight from the buffer
                recv.position(at + Bhs.LENGTH + rest);
                continue;
            }
            DecodeResult r = decoder.decode(recv, at);
            recv.position(at + Bhs.LENGTH + rest);
            if (r instanceof DecodeError e) {
                onDecodeError(e);
            } else if (ffp != null) {
                ffp.onPdu((Pdu) r);
            } else {
                onLoginPdu((Pdu) r);
                if (ffp != null) {
                    return; // the rest is the full feature phase's: the login thread hands over first
                }
            }
        }
    }

    void onDecodeError(DecodeError e) {
        if (TRACE) {
            LOG.info("cid " + cid + " decode error: " + e.detail() + " " + e.reason());
        }
        if (e.reason() != null) {
            reject(e.reason(), e.rejectedHeader());
        }
        if (e.dropConnection()) {
            close(e.detail());
        }
    }

    void reject(RejectReason reason, ByteBuffer header) {
        if (TRACE) {
            LOG.info("cid " + cid + " -> Reject " + reason);
        }
        IscsiSession s = session;
        writer.send(sn -> new Reject(reason.code, sn, s == null ? 0 : s.expCmdSn(), s == null ? 0 : s.maxCmdSn(), 0,
                header), true);
    }

    private void onLoginPdu(Pdu p) {
        if (!(p instanceof LoginRequest req)) {
            // RFC 7143 §6.3: only Login Requests before the full feature phase; anything else ends the connection
            close("non-login PDU during login");
            return;
        }
        if (login.finished()) {
            close("login request after login ended");
            return;
        }
        cid = req.cid();
        LoginStep step = login.onRequest(req);
        if (step.outcome() == LoginStep.Outcome.FULL_FEATURE) {
            admitted = true;
        }
        writer.sendAsIs(step.response());
        switch (step.outcome()) {
            case CONTINUE -> { }
            case FAILED -> {
                server.loginCounters.failed(step.response().statusClass(), step.response().statusDetail());
                LOG.fine(() -> "login failed: " + step.reason());
                writer.flush();
                close("login failed");
            }
            case FULL_FEATURE -> {
                server.loginCounters.succeeded(step.session().discovery());
                enterFullFeature(step);
            }
        }
    }

    private void enterFullFeature(LoginStep step) {
        writer.flush(); // the last Login Response goes out without digests
        NegotiatedParameters p = step.session().parameters();
        if (step.session().tsih() != 0) { // a connection joining a session keeps the session's LO values
            p = p.forConnectionOf(session.params);
        }
        decoder = PduDecoder.forTarget(p.headerDigest(), p.dataDigest(), p.targetMaxRecvDataSegmentLength());
        writer.enterFullFeature(p.headerDigest(), p.dataDigest(), p.initiatorMaxRecvDataSegmentLength(),
                p.maxBurstLength(), login.nextStatSn());
        FullFeature f = new FullFeature(this, session, p);
        writer.releaseTasksTo(f::recycle);
        ffp = f;
        login = null;
    }

    /** Gives this connection's {@link LoginGate} place back, once: on handing over to full feature or closing. */
    private void leaveLoginGate() {
        if (loginPlace.compareAndSet(true, false)) {
            server.loginGate.leave(from);
        }
    }

    // LoginEnvironment, answered for this connection.

    @Override
    public LoginTarget target(String name) {
        ExportedTarget t = server.exported(name);
        return t == null ? null : t.loginTarget();
    }

    @Override
    public ChapPolicy discoveryChap() {
        return server.discoveryChap();
    }

    @Override
    public NegotiationPolicy policy() {
        return server.negotiationPolicy();
    }

    @Override
    public Admission admit(SessionRequest request) {
        loginTarget = request.targetName() == null ? null : server.exported(request.targetName());
        if (request.targetName() != null && loginTarget == null) {
            return Admission.refused(LoginStatus.TARGET_REMOVED);
        }
        // The full feature phase's buffers are taken before the final Login Response, so that a server out of
        // direct memory answers this login with "out of resources" (RFC 7143 §11.13.5, 0x0302; the initiator
        // retries later) instead of accepting it and then dropping the connection.
        if (!reserveFullSizeBuffers()) {
            return Admission.refused(LoginStatus.OUT_OF_RESOURCES);
        }
        Admission a = server.registry.admit(request, loginTarget, this);
        if (!a.admitted()) {
            releaseReservedBuffers();
        }
        return a;
    }

    private boolean reserveFullSizeBuffers() {
        try {
            reservedRecv = server.recvPool.take();
            reservedSend = server.sendPool.take();
            return true;
        } catch (OutOfMemoryError e) { // direct memory at -XX:MaxDirectMemorySize even after a collection
            releaseReservedBuffers();
            LOG.log(Level.WARNING, "no direct memory for a new session's buffers; its login is refused with "
                    + "\"out of resources\" (serve --memory sets the limit)");
            return false;
        }
    }

    private void releaseReservedBuffers() {
        server.recvPool.give(reservedRecv);
        server.sendPool.give(reservedSend);
        reservedRecv = null;
        reservedSend = null;
    }

    void bind(IscsiSession s) {
        this.session = s;
    }

    /**
     * A command completed (any thread): send its Data-In and status, free its window slot and task. Off the reader
     * thread the responses go out now, or at the end of the completing thread's {@link CompletionBatch} (an RBD
     * poller draining several completions sends each connection's responses with one write).
     */
    void completed(Task t) {
        FullFeature f = ffp;
        if (f != null) {
            f.completed(t);
        }
        if (!onReaderThread() && !CompletionBatch.defer(flushWriter)) {
            writer.flush();
        }
    }

    /**
     * Keepalive thread: closes a connection whose login has not finished in time (a socket that never logs in must
     * not hold a thread and buffers forever), pings a silent full-feature connection, closes one that stopped
     * answering.
     */
    void checkAlive(long now) {
        if (closed.get()) {
            return;
        }
        if (ffp == null) {
            if (now - connectedNanos > server.loginTimeoutNanos()) {
                server.loginCounters.timedOut();
                close("login not finished in time");
            }
            return;
        }
        IscsiSession s = session;
        if (s == null || server.nopInIntervalNanos() == 0) {
            return;
        }
        switch (keepalive.check(now)) {
            case Keepalive.PING -> keepalive.ping(this, s, now);
            case Keepalive.DEAD -> close("NOP-In ping not answered");
            default -> { }
        }
    }

    /** Closes the connection once: pending tasks are failed exactly once, the session learns it lost a connection. */
    void close(String why) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        LOG.fine(() -> "connection closed: " + why);
        try {
            channel.close(); // a blocked read or write on the reader thread fails now; it then runs cleanup()
        } catch (IOException e) {
            LOG.log(Level.FINE, "close", e);
        }
        if (reader == null) { // never started: nobody else will clean up
            cleanup();
        }
    }

    /**
     * Runs once, on the reader thread as it exits (or in {@link #close} for a connection that never started), so
     * that the tasks the reader owns are never torn down under its feet: tasks still waiting for Data-Out end here
     * exactly once, tasks inside the core end in {@link #completed} (their responses are dropped), the session
     * learns it lost a connection, and the buffers go back to the pools.
     */
    private void cleanup() {
        if (!cleaned.compareAndSet(false, true)) {
            return;
        }
        FullFeature f = ffp;
        if (f != null) {
            f.abortAll();
        }
        IscsiSession s = session;
        if (s != null) {
            s.detach(this);
        }
        leaveLoginGate();
        server.connectionClosed(this);
        writer.retire();
        releaseReservedBuffers(); // a login admitted but closed before the hand-over
        if (fullSize) {
            server.recvPool.give(recv);
            server.sendPool.give(send);
        } else {
            server.loginPool.give(recv);
            server.loginPool.give(send);
        }
    }

    /** Login limits, kept here so the connection does not reach into the login package's internals. */
    static final class LoginStateMachineLimits {
        /** RFC 7143 §13.12: login PDUs carry at most 8192 bytes. */
        static final int LOGIN_SEGMENT = 8192;

        private LoginStateMachineLimits() {}
    }
}
