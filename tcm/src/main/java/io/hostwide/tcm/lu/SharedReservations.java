package io.hostwide.tcm.lu;

import io.hostwide.tcm.spi.ReservationStore;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * This gateway's copy of an LU's reservation state kept in a {@link ReservationStore} shared with other gateways
 * (issue 16 item 2). Writers read the store's state, decide, compare-and-set, and on a lost race decide again
 * from the winner's state; then notify every gateway and return only when each acknowledged having installed the
 * new state (or was fenced by the store), so a GOOD on gateway A means gateway B already checks against it.
 *
 * <p>When this gateway cannot trust its copy — the store is unreachable, or the watch broke (partition,
 * blocklist) — it installs {@link PrState#UNTRUSTED}: commands that need the reservation check get BUSY until a
 * fresh read succeeds (a background retry, or the next PERSISTENT RESERVE IN/OUT). BUSY rather than NOT READY or
 * an ALUA state: the condition is transient and SAM-5 §5.3.1 defines BUSY as "reissue later", which Linux, ESX and
 * Windows retry in place for a while before failing the path over, as tcmu-runner answers for a lost RBD lock;
 * NOT READY / LOGICAL UNIT NOT ACCESSIBLE, TARGET PORT IN UNAVAILABLE STATE would instead fail the path on the
 * first command of a watch that is merely reconnecting. Answering from a stale copy is the one thing it must not
 * do: a reservation taken through another gateway would be ignored.
 *
 * <p>Locks: writers hold the {@link PersistentReservations} monitor across their store round trips; the notify
 * handler never takes it (the writer of another gateway waits for its acknowledgement while this gateway's writer
 * may wait for theirs); {@code cacheLock} guards the installed version and is never held across a round trip.
 */
public final class SharedReservations {
    private static final Logger LOG = Logger.getLogger(SharedReservations.class.getName());
    /** Lost compare-and-sets in a row before the writer gives up with BUSY (only under a storm of writers). */
    static final int MAX_RACES = 64;
    public static final Duration DEFAULT_NOTIFY_TIMEOUT = Duration.ofSeconds(5);

    private final PersistentReservations pr;
    private final ReservationStore store;
    private final String gatewayId;
    private volatile Duration notifyTimeout = DEFAULT_NOTIFY_TIMEOUT;
    private final Object cacheLock = new Object();
    private long version;            // guarded by cacheLock: store version of what pr holds
    private SharedPrDocument doc = SharedPrDocument.EMPTY; // guarded by cacheLock
    private long epoch;              // guarded by cacheLock: bumped when the watch breaks
    private Thread recovery;         // guarded by cacheLock
    private volatile ReservationStore.Watch watch;
    private volatile boolean closed;
    private volatile LuEvent.Listener listener;

    SharedReservations(PersistentReservations pr, ReservationStore store, String gatewayId) {
        this.pr = pr;
        this.store = store;
        this.gatewayId = gatewayId;
    }

    public String gatewayId() { return gatewayId; }

    public void notifyTimeout(Duration d) { this.notifyTimeout = d; }

    void start() throws ReservationStore.UnavailableException {
        watch = store.watch(new Watcher());
        ReservationStore.Versioned v = store.load();
        SharedPrDocument d;
        try {
            d = SharedPrDocument.decode(v.bytes());
        } catch (SharedPrDocument.MalformedException e) {
            watch.close();
            throw new ReservationStore.UnavailableException("reservation state of " + pr.device().name()
                    + " in the store is unreadable: " + e.getMessage());
        }
        synchronized (cacheLock) {
            version = v.version();
            doc = d;
            pr.install(d.state());
        }
    }

    /** The relative target port ids and names every gateway advertised (REGISTER AND MOVE's destinations). */
    public String portName(int relativeTargetPortId) {
        synchronized (cacheLock) {
            return doc.ports().get(relativeTargetPortId);
        }
    }

    /** The relative target port ids every gateway advertised, in order: every target port of the LU. */
    public java.util.SortedSet<Integer> relativePortIds() {
        synchronized (cacheLock) {
            return new java.util.TreeSet<>(doc.ports().keySet());
        }
    }

    /** Advertises a target port of this gateway to the others (for REGISTER AND MOVE, SPC-4 §5.13.8). */
    public boolean advertisePort(int relativeTargetPortId, String portName) {
        synchronized (pr) {
            for (int i = 0; i < MAX_RACES; i++) {
                Loaded l = load();
                if (l == null) {
                    return false;
                }
                if (portName.equals(l.doc.ports().get(relativeTargetPortId))) {
                    return true;
                }
                java.util.TreeMap<Integer, String> ports = new java.util.TreeMap<>(l.doc.ports());
                ports.put(relativeTargetPortId, portName);
                SharedPrDocument next = new SharedPrDocument(l.doc.state(), ports);
                try {
                    long nv = store.compareAndSet(l.version, next.encode());
                    if (nv != ReservationStore.LOST) {
                        install(nv, next, l.epoch);
                        store.notifyWatchers(SharedPrDocument.encodeNotify(gatewayId, nv, List.of()), notifyTimeout);
                        return true;
                    }
                } catch (ReservationStore.UnavailableException e) {
                    untrust(e);
                    return false;
                }
            }
            return false;
        }
    }

    /**
     * Sends {@code kind}/{@code code} to every other gateway of the LU ({@link LuEvent}) and returns once each
     * acted on it and acknowledged, or, after the notify timeout, once the silent ones were fenced by the store.
     *
     * @return true when every gateway acknowledged in time; false when one did not (and was fenced) or the store
     *         could not be reached (the others may not have it)
     */
    public boolean broadcast(LuEvent.Kind kind, int code) {
        return broadcast(kind, code, notifyTimeout);
    }

    /** As {@link #broadcast(LuEvent.Kind, int)}, with its own notify timeout (after which the silent are fenced). */
    public boolean broadcast(LuEvent.Kind kind, int code, Duration timeout) {
        try {
            return store.notifyWatchers(new LuEvent(gatewayId, kind, code).encode(), timeout);
        } catch (ReservationStore.UnavailableException e) {
            LOG.warning(() -> pr.device().name() + ": cannot tell the other gateways of " + kind + ": " + e.getMessage());
            return false;
        }
    }

    /** Where events other than resets go (the ALUA policy's {@link LuEvent.Kind#RELEASE}); null: nowhere. */
    public void listener(LuEvent.Listener l) { this.listener = l; }

    /** Another gateway's event: a reset is carried out here; the rest goes to the listener. On the delivery thread. */
    private void event(byte[] payload) {
        LuEvent e;
        try {
            e = LuEvent.decode(payload);
        } catch (SharedPrDocument.MalformedException ex) {
            LOG.warning(() -> "unreadable event for " + pr.device().name() + ": " + ex.getMessage());
            return;
        }
        if (e.origin().equals(gatewayId)) {
            return;
        }
        if (e.kind() == LuEvent.Kind.RESET) {
            remoteReset(e.code());
            return;
        }
        LuEvent.Listener l = listener;
        if (l != null) {
            l.event(e);
        }
    }

    /**
     * A reset taken on another gateway (SAM-5 §6.3.3): this gateway's commands on the LU are aborted, its
     * medium-removal preventions cleared, and each of its I_T nexuses of the LU gets the reset's unit attention,
     * as the reset's own gateway did for its nexuses. The SPC-2 reservation's release is already in the shared
     * state (the resetting gateway committed it before telling).
     */
    private void remoteReset(int ascAscq) {
        Device d = pr.device();
        List<ItNexus> nexuses = new java.util.ArrayList<>();
        for (SessionLun l : d.nexuses()) {
            nexuses.add(l.session());
        }
        PersistentReservations.RemoteAborter a = pr.remoteAborter();
        if (!nexuses.isEmpty() && a != null) {
            CountDownLatch gone = new CountDownLatch(1);
            a.abort(nexuses, gone::countDown);
            try {
                gone.await(notifyTimeout.toMillis(), TimeUnit.MILLISECONDS); // as PREEMPT AND ABORT, bounded
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        d.clearMediumRemovalPrevention();
        d.broadcastUnitAttention(ascAscq, null);
        LOG.info(() -> d.name() + ": reset on another gateway; unit attention " + Integer.toHexString(ascAscq)
                + " for " + nexuses.size() + " I_T nexuses here");
    }

    PersistentReservations.Result change(Function<PrState, PrChange> decide) {
        synchronized (pr) {
            PrChange c = null;
            for (int i = 0; i < MAX_RACES; i++) {
                Loaded l = load();
                if (l == null) {
                    return new PersistentReservations.Result(PersistentReservations.Status.UNAVAILABLE, c);
                }
                c = decide.apply(l.doc.state());
                if (c.next() == null) {
                    return new PersistentReservations.Result(PersistentReservations.Status.UNCHANGED, c);
                }
                SharedPrDocument next = l.doc.withState(c.next());
                long nv;
                try {
                    nv = store.compareAndSet(l.version, next.encode());
                    if (nv == ReservationStore.LOST) {
                        continue; // another gateway won: decide again from its state
                    }
                    install(nv, next, l.epoch);
                    List<ItNexus> abort = pr.apply(c.notices());
                    // returns once every watcher installed nv, or the silent ones were fenced by the store
                    store.notifyWatchers(SharedPrDocument.encodeNotify(gatewayId, nv, c.notices()), notifyTimeout);
                    return new PersistentReservations.Result(PersistentReservations.Status.COMMITTED, c, abort);
                } catch (ReservationStore.UnavailableException e) {
                    // the change may be stored but the others are not known to have it: not GOOD
                    untrust(e);
                    return new PersistentReservations.Result(PersistentReservations.Status.UNAVAILABLE, c);
                }
            }
            LOG.warning(() -> "reservation state of " + pr.device().name() + ": " + MAX_RACES + " lost races in a row");
            return new PersistentReservations.Result(PersistentReservations.Status.UNAVAILABLE, c);
        }
    }

    private record Loaded(long version, SharedPrDocument doc, long epoch) {}

    /** The store's state, after making sure the watch is up; null (and untrusted) when unreachable. */
    private Loaded load() {
        if (!ensureWatch()) {
            return null;
        }
        long e;
        synchronized (cacheLock) {
            e = epoch;
        }
        try {
            ReservationStore.Versioned v = store.load();
            SharedPrDocument d = SharedPrDocument.decode(v.bytes());
            install(v.version(), d, e);
            return new Loaded(v.version(), d, e);
        } catch (ReservationStore.UnavailableException ex) {
            untrust(ex);
            return null;
        } catch (SharedPrDocument.MalformedException ex) {
            // a store object this version cannot read: never guess a state from it; BUSY until it is repaired
            LOG.severe(() -> "reservation state of " + pr.device().name() + " in the store is unreadable: " + ex.getMessage());
            untrust(ex);
            return null;
        }
    }

    private synchronized boolean ensureWatch() {
        ReservationStore.Watch w = watch;
        if (closed) {
            return false;
        }
        if (w != null && w.healthy()) {
            return true;
        }
        if (w != null) {
            w.close();
        }
        try {
            watch = store.watch(new Watcher());
            return true;
        } catch (ReservationStore.UnavailableException e) {
            watch = null;
            return false;
        }
    }

    /** Installs {@code d} unless the watch broke since {@code seenEpoch} or a newer version is installed. */
    private void install(long v, SharedPrDocument d, long seenEpoch) {
        synchronized (cacheLock) {
            if (seenEpoch != epoch || closed) {
                return;
            }
            if (pr.state().untrusted() || v > version) {
                version = v;
                doc = d;
                pr.install(d.state());
            }
        }
    }

    private void untrust(Exception cause) {
        synchronized (cacheLock) {
            epoch++;
            pr.install(PrState.UNTRUSTED);
        }
        LOG.log(Level.WARNING, "reservation state of " + pr.device().name() + " not trusted until re-read: " + cause);
        startRecovery();
    }

    /** A synchronous re-read: the trusted state, or null when the store still cannot be reached. */
    PrState recoverNow() {
        Loaded l = load();
        PrState s = pr.state();
        return l == null || s.untrusted() ? null : s;
    }

    private void startRecovery() {
        synchronized (cacheLock) {
            if (closed || recovery != null && recovery.isAlive()) {
                return;
            }
            recovery = Thread.ofVirtual().name("pr-recovery-" + pr.device().name()).start(this::recoverLoop);
        }
    }

    /** Re-reads with backoff until the copy is trusted again (a partition may last long; the retry is cheap). */
    private void recoverLoop() {
        long backoffMs = 10;
        while (!closed && pr.state().untrusted()) {
            if (recoverNow() != null) {
                return;
            }
            try {
                Thread.sleep(backoffMs);
            } catch (InterruptedException e) {
                return;
            }
            backoffMs = Math.min(1000, backoffMs * 2);
        }
    }

    void close() {
        closed = true;
        ReservationStore.Watch w = watch;
        if (w != null) {
            w.close();
        }
        synchronized (cacheLock) {
            if (recovery != null) {
                recovery.interrupt();
            }
        }
        if (store instanceof AutoCloseable c) { // the LU's own client (PersistentReservations#share)
            try {
                c.close();
            } catch (Exception e) {
                LOG.warning(() -> "closing the reservation store of " + pr.device().name() + ": " + e);
            }
        }
    }

    /** The watch: installs what another gateway committed, queues the unit attentions it owes, then acks. */
    private final class Watcher implements ReservationStore.Watcher {
        @Override
        public void notified(byte[] payload) {
            if (LuEvent.is(payload)) {
                event(payload);
                return;
            }
            SharedPrDocument.Notify n;
            try {
                n = SharedPrDocument.decodeNotify(payload);
            } catch (SharedPrDocument.MalformedException e) {
                LOG.warning(() -> "unreadable reservation notify for " + pr.device().name() + ": " + e.getMessage());
                n = null; // still re-read the state below: something changed
            }
            if (n != null && n.origin().equals(gatewayId)) {
                return; // our own change, installed before we notified
            }
            long e;
            synchronized (cacheLock) {
                e = epoch;
            }
            try {
                ReservationStore.Versioned v = store.load();
                install(v.version(), SharedPrDocument.decode(v.bytes()), e);
            } catch (ReservationStore.UnavailableException | SharedPrDocument.MalformedException ex) {
                untrust(ex);
            }
            if (n == null) {
                return;
            }
            List<ItNexus> abort = pr.apply(n.notices());
            PersistentReservations.RemoteAborter a = pr.remoteAborter();
            if (!abort.isEmpty() && a != null) {
                CountDownLatch gone = new CountDownLatch(1);
                a.abort(abort, gone::countDown);
                try {
                    // bounded: the notifier's timeout fences us anyway if we never get there
                    gone.await(notifyTimeout.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void broken(Exception cause) {
            if (!closed) {
                untrust(cause);
            }
        }
    }
}
