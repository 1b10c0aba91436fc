package io.hostwide.iscsi.server;

import io.hostwide.iscsi.discovery.DiscoveryTarget;
import io.hostwide.iscsi.discovery.Portal;
import io.hostwide.iscsi.login.ChapPolicy;
import io.hostwide.iscsi.login.NegotiationPolicy;
import io.hostwide.tcm.TargetCore;
import io.hostwide.tcm.port.TargetPort;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The iSCSI target server: listens on network portals, logs initiators in (CHAP per target and for discovery),
 * answers SendTargets with every portal, and carries SCSI commands to the {@link TargetCore}.
 *
 * <pre>{@code
 * TargetCore core = new TargetCore();
 * ScsiTarget t = core.addTarget("iqn.2026-12.io.hostwide:target0");
 * TargetPort port = core.addPort(t, 1, 5);                       // TPGT 1, protocol id 5 = iSCSI
 * port.addLun(0, core.addDevice("ram0", new RamBackstore(1L << 30, 512), new DeviceAttributes()));
 * port.demoMode(true, false);                                    // or port.addAcl(initiatorIqn).map(0, 0, false)
 * IscsiTargetServer server = IscsiTargetServer.builder(core)
 *         .portal(new InetSocketAddress("127.0.0.1", 3260))
 *         .export(port, new ChapPolicy(ChapSecret.of("user", "secret-of-12+"), null), "disk0")
 *         .queueDepth(128)
 *         .build();
 * server.start();
 * ...
 * server.close();
 * }</pre>
 */
public final class IscsiTargetServer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(IscsiTargetServer.class.getName());

    private final TargetCore core;
    /** The portals asked for before {@link #start()}; afterwards {@link #listeners} says what listens. */
    private final List<InetSocketAddress> portals;
    /**
     * Copy on write: logins and SendTargets read it without a lock; {@link #export}/{@link #unexport} (management
     * calls, rare) replace it whole under this server's lock.
     */
    private volatile Map<String, ExportedTarget> targets;
    private volatile ChapPolicy discoveryChap;
    private final NegotiationPolicy policy;
    final SessionRegistry registry;
    final AsyncEvents asyncEvents = new AsyncEvents();
    private volatile boolean draining;
    final BufferPool recvPool;
    final BufferPool sendPool;
    /** Both buffers of every connection before the full feature phase; never more than the gate admits. */
    final BufferPool loginPool;
    final LoginGate loginGate;
    final LoginCounters loginCounters = new LoginCounters();
    /** The portals listened on, in the order they were opened; under this server's lock. */
    private final List<Listener> listeners = new ArrayList<>();
    private boolean started;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.atomic.AtomicLong lastStartFailureLog = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean closed;
    private final long nopInIntervalNanos;
    private final long nopInTimeoutNanos;
    private final long loginTimeoutNanos;
    final ReadSpin readSpin;
    private Thread keepaliveThread;

    private IscsiTargetServer(Builder b) {
        this.core = b.core;
        this.portals = new ArrayList<>(b.portals);
        this.targets = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(b.targets));
        this.discoveryChap = b.discoveryChap;
        this.policy = b.policy;
        this.registry = new SessionRegistry(core, b.queueDepth, asyncEvents);
        this.nopInIntervalNanos = b.nopInIntervalMillis * 1_000_000L;
        this.nopInTimeoutNanos = b.nopInTimeoutMillis * 1_000_000L;
        this.loginTimeoutNanos = b.loginTimeoutMillis * 1_000_000L;
        this.readSpin = new ReadSpin(b.readSpinMicros * 1_000L);
        // Room for the largest PDU the initiator may send us, twice, so a read can always take a whole one more.
        int recvSize = 2 * (policy.maxRecvDataSegmentLength() + 2048);
        this.recvPool = new BufferPool(Math.max(recvSize, 64 * 1024), FULL_SIZE_POOLED, b.fullSizeAllocator);
        this.sendPool = new BufferPool(2 * ResponseWriter.MAX_SEGMENT + 64 * 1024, FULL_SIZE_POOLED, b.fullSizeAllocator);
        this.loginGate = new LoginGate(b.maxPendingLogins, b.maxPendingLoginsPerAddress, REFUSAL_LOG_INTERVAL_NANOS,
                System::nanoTime);
        // As many as can be in use at once: the pool then never allocates twice for the same place.
        this.loginPool = new BufferPool(Connection.LOGIN_BUFFER, 2 * b.maxPendingLogins);
    }

    /**
     * Full-size buffers kept free for the next logins (about 1.1 MiB per connection): enough that sessions coming and
     * going allocate nothing, few enough that a burst of connections leaves no more than ~18 MiB behind.
     */
    static final int FULL_SIZE_POOLED = 16;
    /** How long an acceptor waits after a failed accept (no file descriptor left) before it tries again. */
    static final long ACCEPT_RETRY_MILLIS = 50;
    /** At most one "refused connections" log line this often. */
    static final long REFUSAL_LOG_INTERVAL_NANOS = 10_000_000_000L;
    /** Default cap on connections not yet in the full feature phase, overall; see {@link Builder#pendingLogins}. */
    public static final int DEFAULT_PENDING_LOGINS = 128;
    /** Default cap on connections not yet in the full feature phase from one source address. */
    public static final int DEFAULT_PENDING_LOGINS_PER_ADDRESS = 16;

    public static Builder builder(TargetCore core) {
        return new Builder(core);
    }

    /** The socket family a portal address needs: INET for an IPv4 address (the wildcard included), else INET6. */
    static ProtocolFamily familyOf(InetSocketAddress a) {
        return a.getAddress() instanceof Inet4Address ? StandardProtocolFamily.INET : StandardProtocolFamily.INET6;
    }

    /**
     * One listening portal: the address asked for, its socket, the address it got (port 0 resolved) and the thread
     * accepting on it.
     */
    private record Listener(InetSocketAddress requested, ServerSocketChannel channel, InetSocketAddress bound,
                            Thread acceptor) {
        /** Whether {@code a} names this portal: as asked for (unless port 0: each such ask is a new portal) or bound. */
        boolean is(InetSocketAddress a) {
            return a.getPort() != 0 && requested.equals(a) || bound.equals(a);
        }
    }

    private Listener listener(InetSocketAddress a) {
        for (Listener l : listeners) {
            if (l.is(a)) {
                return l;
            }
        }
        return null;
    }

    /** Binds every portal and starts accepting. Port 0 binds a free port: see {@link #boundAddresses()}. */
    public synchronized void start() throws IOException {
        started = true;
        try {
            for (InetSocketAddress a : portals) {
                if (a.getPort() == 0 || listener(a) == null) {
                    listen(a);
                }
            }
        } catch (IOException | RuntimeException e) {
            closeListeners(); // nothing half-started: a failed start listens nowhere
            listeners.clear();
            throw e;
        }
        if (keepaliveThread == null) {
            keepaliveThread = new Thread(this::keepalive, "iscsi-keepalive");
            keepaliveThread.setDaemon(true);
            keepaliveThread.start();
        }
    }

    private InetSocketAddress listen(InetSocketAddress a) throws IOException {
        // An IPv4 address gets an IPv4 socket: 0.0.0.0 must not become the dual-stack IPv6 wildcard (::), which
        // would also accept IPv6 and be reported as 0:0:0:0:0:0:0:0.
        ServerSocketChannel ss = ServerSocketChannel.open(familyOf(a));
        InetSocketAddress local;
        try {
            ss.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            ss.bind(a, 128);
            local = (InetSocketAddress) ss.getLocalAddress();
        } catch (IOException | RuntimeException e) {
            ss.close();
            throw e;
        }
        Thread acceptor = new Thread(() -> accept(ss, local), "iscsi-accept-" + local);
        acceptor.setDaemon(true);
        listeners.add(new Listener(a, ss, local, acceptor));
        acceptor.start();
        return local;
    }

    /**
     * Opens a network portal while running (LIO's {@code tpg1/portals create}); every exported target is reachable
     * through it and SendTargets lists it from now on. Before {@link #start()} it is only remembered.
     *
     * @return the address now listened on (its port resolved when 0 was asked), or null before {@link #start()}
     * @throws java.net.BindException when the address is in use (by another process, or by an overlapping portal
     *                                of this server: a wildcard and a specific address on one port), or not local
     */
    public synchronized InetSocketAddress addPortal(InetSocketAddress address) throws IOException {
        if (closed) {
            throw new IllegalStateException("server closed");
        }
        Listener l = listener(address);
        if (l != null) {
            return l.bound();
        }
        if (!started) {
            if (!portals.contains(address)) {
                portals.add(address);
            }
            return null;
        }
        InetSocketAddress local = listen(address);
        if (!portals.contains(address)) {
            portals.add(address);
        }
        return local;
    }

    /**
     * Closes a network portal while running, as LIO's {@code iscsit_tpg_del_network_portal} does: the listener
     * closes, so new connections to it are refused; connections accepted on it that are still logging in are
     * dropped (LIO resets the portal's login thread); sessions already in the full feature phase keep going on their
     * own connections, and sessions through other portals are not touched. Returns once no connection of the portal
     * is left logging in.
     *
     * @param address the address as given to {@link #addPortal} or the builder (or as bound)
     * @return whether such a portal was open
     */
    public boolean removePortal(InetSocketAddress address) {
        Listener l;
        synchronized (this) {
            l = listener(address);
            if (l == null) {
                return portals.remove(address); // added before start(): forgotten, nothing listened
            }
            listeners.remove(l);
            portals.remove(l.requested());
            try {
                l.channel().close();
            } catch (IOException e) {
                LOG.log(Level.FINE, "close listener", e);
            }
        }
        // The acceptor may hold a connection accepted just before the close; once it has ended, every connection of
        // this portal is in the set below, so none escapes the sweep (and the port is free again).
        joinAcceptor(l);
        for (Connection c : connections) {
            if (c.portal().equals(l.bound()) && !c.admitted()) {
                c.close("portal " + l.bound() + " deleted during login");
            }
        }
        return true;
    }

    /** Checks every connection a few times per interval (RFC 7143 §11.19 target pings). */
    private void keepalive() {
        long shortest = Math.min(loginTimeoutNanos, nopInTimeoutNanos);
        if (nopInIntervalNanos > 0) {
            shortest = Math.min(shortest, nopInIntervalNanos);
        }
        long tick = Math.max(10_000_000L, shortest / 4);
        while (!closed) {
            try {
                Thread.sleep(tick / 1_000_000L);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (Connection c : connections) {
                c.checkAlive(now);
            }
        }
    }

    long nopInIntervalNanos() {
        return nopInIntervalNanos;
    }

    long nopInTimeoutNanos() {
        return nopInTimeoutNanos;
    }

    long loginTimeoutNanos() {
        return loginTimeoutNanos;
    }

    /** The addresses listened on now, in the order their portals were opened. */
    public synchronized List<InetSocketAddress> boundAddresses() {
        return listeners.stream().map(Listener::bound).toList();
    }

    private void accept(ServerSocketChannel ss, InetSocketAddress portal) {
        while (!closed) {
            SocketChannel ch;
            try {
                ch = ss.accept();
            } catch (IOException e) {
                if (closed || draining || !ss.isOpen()) {
                    return;
                }
                // e.g. out of file descriptors: the listener stays, and tries again shortly rather than spinning
                LOG.log(Level.WARNING, "accept failed on " + ss, e);
                try {
                    Thread.sleep(ACCEPT_RETRY_MILLIS);
                } catch (InterruptedException stop) {
                    return;
                }
                continue;
            }
            admit(ch, portal);
        }
    }

    /**
     * Starts a connection if the login gate has a place for it, else refuses it. A connection that fails before it
     * starts (reset by its peer, no memory for its buffers) is closed and costs the listener nothing.
     */
    private void admit(SocketChannel ch, InetSocketAddress portal) {
        InetAddress from;
        try {
            from = ((InetSocketAddress) ch.getRemoteAddress()).getAddress();
        } catch (IOException e) {
            refuse(ch);
            return;
        }
        if (loginGate.tryEnter(from) != LoginGate.Verdict.ADMITTED) {
            refuse(ch);
            return;
        }
        Connection c;
        try {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            c = new Connection(this, ch, from, portal);
        } catch (IOException | OutOfMemoryError e) { // OOME: direct memory at its limit even after a collection
            startFailed(from, e);
            loginGate.leave(from);
            refuse(ch);
            return;
        }
        connections.add(c);
        if (closed) {
            c.close("server closing");
        } else {
            c.start();
        }
    }

    /** One line, at most every {@link #REFUSAL_LOG_INTERVAL_NANOS}: a connection that could not start. */
    private void startFailed(InetAddress from, Throwable why) {
        long now = System.nanoTime();
        long last = lastStartFailureLog.get();
        if (last != 0 && now - last < REFUSAL_LOG_INTERVAL_NANOS || !lastStartFailureLog.compareAndSet(last, now)) {
            return;
        }
        LOG.warning("cannot start a connection from " + from.getHostAddress() + ": " + why
                + " (this line comes at most every 10 s)");
    }

    /**
     * Closes a connection the login gate refused, at once and with a reset (SO_LINGER 0): nothing was read from it,
     * so there is no Login Request to answer, and the reset leaves no TIME_WAIT socket behind per refusal.
     */
    private static void refuse(SocketChannel ch) {
        try {
            ch.setOption(StandardSocketOptions.SO_LINGER, 0);
        } catch (IOException e) {
            LOG.log(Level.FINE, "SO_LINGER on a refused connection", e);
        }
        try {
            ch.close();
        } catch (IOException e) {
            LOG.log(Level.FINE, "close a refused connection", e);
        }
    }

    /**
     * Connection counts: open connections (logging in or logged in), those not yet in the full feature phase, and
     * those refused so far because the overall or the per-address cap on the latter was reached.
     */
    public record ConnectionCounts(int open, int pendingLogins, long refusedOverall, long refusedPerAddress) {
    }

    /** How logins ended since the server started (metrics). */
    public LoginCounters loginCounters() {
        return loginCounters;
    }

    public ConnectionCounts connectionCounts() {
        return new ConnectionCounts(connections.size(), loginGate.pending(), loginGate.refusedOverTotal(),
                loginGate.refusedOverAddress());
    }

    /** The open connections now (tests). */
    List<Connection> openConnections() {
        return List.copyOf(connections);
    }

    void connectionClosed(Connection c) {
        connections.remove(c);
    }

    ExportedTarget exported(String name) {
        return targets.get(name);
    }

    ChapPolicy discoveryChap() {
        return discoveryChap;
    }

    /**
     * Exports a core target port while running, or replaces the export of the same name (new CHAP or alias): logins
     * from now on see the new one; sessions already logged in keep going (LIO applies auth changes to new logins).
     *
     * @return whether a target of that name was exported already
     */
    public boolean export(TargetPort port, ChapPolicy chap, String alias) {
        return export(port, chap, Map.of(), alias);
    }

    /** The same, with CHAP of its own for some initiators (LIO's per-node-ACL auth). */
    public synchronized boolean export(TargetPort port, ChapPolicy chap, Map<String, ChapPolicy> initiatorChap,
                                       String alias) {
        ExportedTarget t = new ExportedTarget(port, chap, initiatorChap, alias);
        Map<String, ExportedTarget> next = new LinkedHashMap<>(targets);
        boolean existed = next.put(t.name(), t) != null;
        targets = java.util.Collections.unmodifiableMap(next);
        return existed;
    }

    /**
     * Stops exporting a target: it disappears from SendTargets and refuses logins at once, and every session logged in
     * to it ends (its connections close; commands in flight end once), as LIO does when a target is removed.
     *
     * @return whether it was exported
     */
    public boolean unexport(String name) {
        synchronized (this) {
            if (!targets.containsKey(name)) {
                return false;
            }
            Map<String, ExportedTarget> next = new LinkedHashMap<>(targets);
            next.remove(name);
            targets = java.util.Collections.unmodifiableMap(next);
        }
        for (IscsiSession s : registry.sessions()) {
            if (s.target != null && s.target.name().equals(name)) {
                s.close();
            }
        }
        return true;
    }

    /** Replaces the CHAP policy of discovery sessions; sessions already open keep going. */
    public void discoveryChap(ChapPolicy chap) {
        this.discoveryChap = chap == null ? ChapPolicy.NONE : chap;
    }

    NegotiationPolicy negotiationPolicy() {
        return policy;
    }

    /**
     * The targets as SendTargets reports them: each with every portal open now and its portal group tag. A wildcard
     * portal (0.0.0.0, ::) is reported as the address the asking connection reached, as LIO's
     * {@code iscsit_build_sendtargets_response} does: an initiator cannot connect to a wildcard.
     *
     * @param local the local address of the connection that asks
     */
    List<DiscoveryTarget> discoveryTargets(InetSocketAddress local) {
        List<InetSocketAddress> reported = reportedPortals(boundAddresses(), local);
        List<DiscoveryTarget> out = new ArrayList<>();
        for (ExportedTarget t : targets.values()) {
            List<Portal> ps = new ArrayList<>();
            for (InetSocketAddress a : reported) {
                ps.add(new Portal(a.getAddress().getHostAddress(), a.getPort(), t.port().tag()));
            }
            out.add(new DiscoveryTarget(t.name(), ps, t.port()::admits));
        }
        return out;
    }

    /**
     * The portals SendTargets names to a connection that reached {@code local}: each bound one, a wildcard replaced
     * by {@code local}'s address (when known), without repeats (a wildcard and a specific portal may then coincide).
     */
    static List<InetSocketAddress> reportedPortals(List<InetSocketAddress> bound, InetSocketAddress local) {
        List<InetSocketAddress> out = new ArrayList<>();
        for (InetSocketAddress a : bound) {
            InetSocketAddress r = a.getAddress().isAnyLocalAddress() && local != null
                    ? new InetSocketAddress(local.getAddress(), a.getPort()) : a;
            if (!out.contains(r)) {
                out.add(r);
            }
        }
        return out;
    }

    /** TARGET COLD RESET (RFC 7143 §11.5.1): every session to {@code target} ends, its connections close. */
    void closeSessionsOf(ExportedTarget target) {
        for (IscsiSession s : registry.sessions()) {
            if (s.target == target) {
                s.close();
            }
        }
    }

    /** Live sessions (normal and discovery). */
    public int sessionCount() {
        return registry.size();
    }

    /**
     * Graceful shutdown: stops accepting connections, asks every session to log out with an Asynchronous Message
     * on each of its connections (AsyncEvent 1, Parameter3 = the seconds it has, RFC 7143 §11.9.1), waits until they
     * have logged out or {@code logoutWait} has passed, then {@link #close closes} what is left: their commands end
     * once. Discovery sessions are closed at once. Returns once closed.
     */
    public void shutdown(Duration logoutWait) {
        int seconds = (int) Math.min(0xffff, Math.max(0, logoutWait.toSeconds())); // Parameter3 is 2 bytes
        draining = true;
        closeListeners();
        boolean any = false;
        for (IscsiSession s : registry.sessions()) {
            if (s.discovery()) {
                s.close();
                continue;
            }
            for (Connection c : s.connections()) {
                asyncEvents.later(() -> AsyncEvents.requestLogout(c, seconds));
                any = true;
            }
        }
        long deadline = System.nanoTime() + logoutWait.toNanos();
        while (any && System.nanoTime() - deadline < 0 && liveSessions() > 0) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        close();
    }

    private int liveSessions() {
        int n = 0;
        for (IscsiSession s : registry.sessions()) {
            if (!s.discovery() && !s.closed()) {
                n++;
            }
        }
        return n;
    }

    /**
     * Closes every listener and waits for its acceptor to end: a channel closed while a thread is blocked in accept()
     * keeps its socket until that thread returns, so without the wait the port could still be held when this returns
     * (a restart in the same process, or a portal created again at once, would find it in use).
     */
    private synchronized void closeListeners() {
        for (Listener l : listeners) {
            try {
                l.channel().close();
            } catch (IOException e) {
                LOG.log(Level.FINE, "close listener", e);
            }
        }
        for (Listener l : listeners) {
            joinAcceptor(l);
        }
    }

    /** Waits for a closed listener's acceptor to end; the acceptor takes no lock of this server, so it always does. */
    private static void joinAcceptor(Listener l) {
        if (Thread.currentThread() == l.acceptor()) {
            return;
        }
        boolean interrupted = false;
        while (l.acceptor().isAlive()) {
            try {
                l.acceptor().join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops accepting, closes every connection (their pending commands end once), leaves the core running. */
    @Override
    public synchronized void close() {
        closed = true;
        if (keepaliveThread != null) {
            keepaliveThread.interrupt();
        }
        asyncEvents.close();
        closeListeners();
        for (IscsiSession s : registry.sessions()) {
            s.close();
        }
        for (Connection c : connections) {
            c.close("server closed");
        }
    }

    /** Configures a server; {@link #build()} validates. */
    public static final class Builder {
        private final TargetCore core;
        private final List<InetSocketAddress> portals = new ArrayList<>();
        private final Map<String, ExportedTarget> targets = new LinkedHashMap<>();
        private ChapPolicy discoveryChap = ChapPolicy.NONE;
        private NegotiationPolicy policy = NegotiationPolicy.defaults();
        private int queueDepth = 128;
        private long nopInIntervalMillis = 15_000;
        private long nopInTimeoutMillis = 15_000;
        private long loginTimeoutMillis = 15_000;
        private long readSpinMicros = 50;
        private int maxPendingLogins = DEFAULT_PENDING_LOGINS;
        private int maxPendingLoginsPerAddress = DEFAULT_PENDING_LOGINS_PER_ADDRESS;
        private IntFunction<ByteBuffer> fullSizeAllocator = ByteBuffer::allocateDirect;

        private Builder(TargetCore core) {
            this.core = core;
        }

        /** A network portal to listen on (RFC 7143 §4.4.1); repeatable; none: {@link #addPortal} opens them later. */
        public Builder portal(InetSocketAddress address) {
            portals.add(address);
            return this;
        }

        /** Exports a core target port as an iSCSI target named after its ScsiTarget. */
        public Builder export(TargetPort port, ChapPolicy chap, String alias) {
            return export(port, chap, Map.of(), alias);
        }

        /** The same, with CHAP of its own for some initiators (LIO's per-node-ACL auth). */
        public Builder export(TargetPort port, ChapPolicy chap, Map<String, ChapPolicy> initiatorChap, String alias) {
            ExportedTarget t = new ExportedTarget(port, chap, initiatorChap, alias);
            if (targets.putIfAbsent(t.name(), t) != null) {
                throw new IllegalArgumentException("target exported twice: " + t.name());
            }
            return this;
        }

        public Builder discoveryChap(ChapPolicy chap) {
            this.discoveryChap = chap == null ? ChapPolicy.NONE : chap;
            return this;
        }

        public Builder negotiation(NegotiationPolicy p) {
            this.policy = p;
            return this;
        }

        /** The CmdSN window of each session: how many commands one session may have outstanding. */
        public Builder queueDepth(int depth) {
            if (depth < 1 || depth > 65536) {
                throw new IllegalArgumentException("queue depth out of range 1..65536: " + depth);
            }
            this.queueDepth = depth;
            return this;
        }

        /**
         * NOP-In pings on connections silent for {@code intervalMillis}; a ping unanswered for {@code timeoutMillis}
         * closes the connection. An interval of 0 turns pings off. Defaults: 15 s and 15 s.
         */
        public Builder nopIn(long intervalMillis, long timeoutMillis) {
            if (intervalMillis < 0 || timeoutMillis <= 0) {
                throw new IllegalArgumentException("NOP-In interval must be >= 0 and timeout > 0");
            }
            this.nopInIntervalMillis = intervalMillis;
            this.nopInTimeoutMillis = timeoutMillis;
            return this;
        }

        /** How long a connection may take from accept to full feature phase before it is closed. Default 15 s. */
        public Builder loginTimeout(long millis) {
            if (millis <= 0) {
                throw new IllegalArgumentException("login timeout must be > 0");
            }
            this.loginTimeoutMillis = millis;
            return this;
        }

        /**
         * Caps the connections that have not reached the full feature phase: at most {@code total} at once, at most
         * {@code perAddress} of them from one source address. One more is closed as soon as it is accepted, and a
         * log line (at most one per 10 s) says how many were refused. Each such connection costs two 16 KiB
         * buffers and a thread for at most the login timeout. Defaults: 128 and 16.
         */
        public Builder pendingLogins(int total, int perAddress) {
            if (total < 1 || perAddress < 1 || perAddress > total) {
                throw new IllegalArgumentException("pending login limits must be 1 <= per address (" + perAddress
                        + ") <= total (" + total + ")");
            }
            this.maxPendingLogins = total;
            this.maxPendingLoginsPerAddress = perAddress;
            return this;
        }

        /**
         * How long a connection reader busy-polls for the next PDU before it blocks (see {@link ReadSpin});
         * 0 turns polling off. Default 50 µs.
         */
        public Builder readSpin(long micros) {
            if (micros < 0 || micros > 10_000) {
                throw new IllegalArgumentException("read spin out of range 0..10000 µs: " + micros);
            }
            this.readSpinMicros = micros;
            return this;
        }

        /** Tests: how a logged-in connection's buffers are made (one that throws OutOfMemoryError stands for a full heap). */
        Builder fullSizeAllocator(IntFunction<ByteBuffer> allocator) {
            this.fullSizeAllocator = allocator;
            return this;
        }

        public IscsiTargetServer build() {
            return new IscsiTargetServer(this);
        }
    }
}
