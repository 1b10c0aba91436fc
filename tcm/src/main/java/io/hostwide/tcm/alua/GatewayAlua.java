package io.hostwide.tcm.alua;

import io.hostwide.tcm.lu.AluaAccessState;
import io.hostwide.tcm.lu.AluaGroups;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.LuEvent;
import io.hostwide.tcm.lu.SharedAccess;
import io.hostwide.tcm.lu.SharedReservations;
import io.hostwide.tcm.lu.TargetPortGroup;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.SharedOwnership;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * ALUA for one LU exported by several gateway processes (issue 16): the recorded owner of the shared storage,
 * which holds its lock (an RBD image's exclusive lock, {@link SharedOwnership}) in steady state, is
 * Active/Optimized; every other gateway's target port group is
 * Active/Non-optimized ({@link Mode#IMPLICIT}) or Standby ({@link Mode#EXPLICIT}). Ceph's gateways work this way
 * (ceph-iscsi with tcmu-runner).
 *
 * <p>Shared table (the image metadata): each gateway registers {@code hostwide.gw.<port group>} =
 * {@code name=<gateway>;rtpi=<relative port ids>}, and the owner keeps {@code hostwide.alua.owner} = its port group.
 * Every gateway reads both every {@code pollMillis} and adds the other gateways' groups with their ports to its
 * {@link AluaGroups}, so REPORT TARGET PORT GROUPS answers alike on every gateway.
 *
 * <p>Implicit mode (the default; ceph-iscsi's too): Active/Optimized is the recorded owner ({@code
 * hostwide.alua.owner}), which holds the lock in steady state (an initiator using multipath's group_by_prio only
 * writes there); a write through a non-optimized gateway borrows the lock without a state change. Active/Non-optimized
 * must process every command (SPC-4 §5.15.2.3), so such a write is parked (not failed, and without holding the
 * submitting thread): this gateway asks the holder, through the LU's reservation store's notify
 * ({@link LuEvent.Kind#RELEASE}), to hand the lock over; the holder stops admitting writes and acknowledges at once
 * (it is alive), then waits for the writes it admitted to end and releases the lock (librbd flushes its writes in
 * flight first); this gateway takes the free lock without fencing anyone and runs every parked write. The states do
 * not change (no ASYMMETRIC ACCESS STATE CHANGED), and the owner takes the lock back the same way at its next write.
 * Only when the holder does not acknowledge within {@link #DEFAULT_RELEASE_TIMEOUT} (dead, frozen, cut off from
 * RADOS; the store's notify then fences it), the lock is still held {@link #DEFAULT_LEND_BOUND} after an
 * acknowledged ask (a holder stuck in its release, or one whose watch already expired), or there is no store ({@code
 * "reservations": "local"}) does this gateway break the lock, which fences the holder
 * (librbd blocklists it), and record itself as the owner: Active/Optimized moves here, TRANSITIONING while it moves,
 * with the unit attention on the other nexuses. A parked write ends NOT READY / ASYMMETRIC ACCESS STATE TRANSITION
 * (04h/0Ah, SPC-4 §5.15.2.5) only when its bound ({@link #DEFAULT_WRITE_WAIT}) passes or the takeover fails, and at
 * once when task management aborts it. Why park rather than answer 04h/0Ah or BUSY (tcmu-runner) at once:
 * initiators retry those a bounded number of times or not at all (libiscsi), while a handover takes milliseconds;
 * why not move Active/Optimized with the lock: every move would raise a unit attention on every nexus of both
 * gateways, so two hosts writing through two gateways would see one on every other command.
 *
 * <p>Explicit mode: non-owners are Standby (no medium access); SET TARGET PORT GROUPS asking Active/Optimized for this
 * gateway's group takes the lock (handover first, then break) and records this gateway as the owner, and completes
 * when it is done. A gateway that notices at its next poll that it is no longer the recorded owner moves its group
 * to the non-owner state, with ASYMMETRIC ACCESS STATE CHANGED for its nexuses.
 *
 * <p>Lifecycle ({@link GatewayTable}): each entry names the gateway's client of the storage; a gateway whose client
 * has left the storage (RBD: the image's watchers) for a few polls is dead, its group is reported Offline, and the
 * owner removes its entry a while later. A gateway that stops cleanly ({@link #close()}) removes its entry and, as
 * the owner, the owner key, then releases the lock: the others see no owner and the first to poll takes it, with
 * nobody fenced.
 *
 * <p>Threads: one daemon thread per LU runs the polls and takeovers (they block on the cluster) and resumes the
 * parked writes; a handover request runs on the reservation store's delivery thread; the I/O path reads
 * {@link #owner}, a volatile, and counts the writes it admits ({@link #writers}), unless it parks one.
 */
public final class GatewayAlua implements SharedAccess, AutoCloseable {
    private static final Logger LOG = Logger.getLogger("io.hostwide.tcm.alua");
    /** The shared table's keys. */
    public static final String GATEWAY_PREFIX = GatewayTable.GATEWAY_PREFIX;
    /** Polls in a row a gateway's client must be missing to count as dead (2 s at 500 ms). */
    public static final int DEAD_POLLS = 4;
    /** Polls in a row after which the owner removes a dead gateway's entry (60 s at 500 ms). */
    public static final int PRUNE_POLLS = 120;
    public static final String OWNER_KEY = "hostwide.alua.owner";
    /** What every key of the shared table starts with. */
    private static final String TABLE_PREFIX = "hostwide.";
    /** How long close() waits for a poll or takeover under way on the policy thread. */
    private static final long CLOSE_WAIT_SECONDS = 30;

    /** How a non-owner gateway's group is reported, and what moves ownership to it. */
    public enum Mode {
        /** Non-owners are Active/Non-optimized; a write through one borrows the lock (see above). */
        IMPLICIT,
        /** Non-owners are Standby; SET TARGET PORT GROUPS moves ownership. */
        EXPLICIT
    }

    private final Device device;
    private final AluaGroups alua;
    private final SharedOwnership ownership;
    private final TargetPortGroup local;
    private final String gatewayName;
    private final Mode mode;
    private final List<Integer> localPorts;
    private final ScheduledExecutorService thread;
    private final AtomicBoolean taking = new AtomicBoolean();
    private final GatewayTable liveness = new GatewayTable(DEAD_POLLS, PRUNE_POLLS);
    /** The other gateways' groups this gateway added from the table (policy thread). */
    private final Set<Integer> remoteGroups = new java.util.HashSet<>();
    /** The groups whose gateway is dead at the last poll (policy thread). */
    private Set<Integer> dead = Set.of();
    /** This gateway's client of the storage, as its entry names it; refreshed at every poll. */
    private String clientId;
    private boolean closed;
    /** The group last published Active/Optimized (policy thread): an unreadable table keeps it. */
    private int lastOwnerGroup = -1;
    /** Whether this gateway held the lock at the last poll, takeover or handover; read by the I/O path. */
    private volatile boolean owner;
    /**
     * Writes admitted under the lock and not yet completed: a handover waits for them before releasing the lock,
     * so that none reaches librbd after it (it would fail EROFS, which reads as a fence). Incremented before
     * re-reading {@link #owner} (admitsWrite), read after clearing it (event): the pairing of two volatile accesses.
     * One atomic rather than a LongAdder: an adder's sum is not a snapshot, and an increment and decrement landing in
     * cells it reads at different times could make it read 0 with a write still running.
     */
    private final AtomicLong writers = new AtomicLong();
    /** Writes waiting for the lock (implicit mode). */
    private final ParkedWrites parked = new ParkedWrites(MAX_PARKED_WRITES);
    private volatile long writeWaitNanos = DEFAULT_WRITE_WAIT.toNanos();

    /**
     * How long a write through a gateway without the lock waits for it (implicit mode) before ending 04h/0Ah: above
     * a handover (milliseconds) and a break after {@link #DEFAULT_RELEASE_TIMEOUT} plus the lock's break and
     * acquire, below the 30 s command timeout of Linux's sd and ESX.
     */
    public static final Duration DEFAULT_WRITE_WAIT = Duration.ofSeconds(10);
    /** Writes that may wait at once per LU; beyond, a write ends 04h/0Ah at once. */
    static final int MAX_PARKED_WRITES = 1024;
    /**
     * How long the holder has to acknowledge a handover request before it is fenced and its lock broken: a live
     * holder acknowledges within milliseconds (and releases after its admitted writes, within {@link
     * #DEFAULT_LEND_BOUND}); a dead or frozen one never answers, and this is what a failover pays for asking first.
     */
    public static final Duration DEFAULT_RELEASE_TIMEOUT = Duration.ofSeconds(2);
    private volatile Duration releaseTimeout = DEFAULT_RELEASE_TIMEOUT;
    /**
     * How long a holder that acknowledged a handover request may take to release the lock before the asking gateway
     * breaks it anyway (at least the release timeout): the holder is alive, and on a loaded host its admitted writes
     * and librbd's flush of them can take seconds; breaking it would fence a live gateway and move
     * Active/Optimized, a unit attention on every nexus. Below {@link #DEFAULT_WRITE_WAIT}, so that the writes
     * parked for the lock still run after such a break.
     */
    public static final Duration DEFAULT_LEND_BOUND = Duration.ofSeconds(6);
    /**
     * Set while this gateway hands the lock over (from the request until {@code rbd_lock_release} returned): the lock
     * is still this client's, but neither a poll nor a takeover of this gateway may publish it as owned. Written
     * under this object's monitor.
     */
    private volatile boolean lending;
    private volatile Duration lendBound = DEFAULT_LEND_BOUND;
    /** Runs the handovers this gateway was asked for, off the store's delivery thread (see {@link #event}). */
    private final ExecutorService lender;
    /** Handovers at least this long are logged (INFO), with their time: what the release timeout must exceed. */
    private static final long SLOW_HANDOVER_MILLIS = 100;
    /** How often a takeover waiting for this gateway's own handover to end looks again. */
    private static final long RETRY_MILLIS = 20;
    /** While the holder lets go, how often the asker looks whether the lock is free (rbd_lock_get_owners). */
    private static final long WAIT_FREE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** How often the asker repeats its request while the lock is still held. */
    private static final long ASK_AGAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private GatewayAlua(Device device, SharedOwnership ownership, TargetPortGroup local, String gatewayName,
                        Mode mode, List<Integer> localPorts) {
        this.device = device;
        this.alua = device.alua();
        this.ownership = ownership;
        this.local = local;
        this.gatewayName = gatewayName;
        this.mode = mode;
        this.localPorts = List.copyOf(localPorts);
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "gateway-alua-" + device.name());
            t.setDaemon(true);
            return t;
        });
        this.lender = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "gateway-lend-" + device.name());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Starts the policy for {@code device}, whose LUN exports are already in {@code local} (this gateway's group):
     * the group starts in the non-owner state; when nobody owns the storage, this gateway takes it (the first
     * gateway up becomes Active/Optimized); then it registers its group and polls every {@code pollMillis}.
     *
     * @param localPorts the relative target port identifiers of this gateway's ports in {@code local}
     */
    public static GatewayAlua start(Device device, SharedOwnership ownership, TargetPortGroup local,
                                    String gatewayName, Mode mode, List<Integer> localPorts, long pollMillis) {
        GatewayAlua g = new GatewayAlua(device, ownership, local, gatewayName, mode, localPorts);
        g.alua.transition(local, g.nonOwnerState());
        g.alua.shared(g);
        SharedReservations sr = device.reservations().shared();
        if (sr != null) {
            sr.listener(g::event); // handovers asked by the other gateways
        }
        try {
            if (!ownership.anyOwner() && ownership.tryTake()) { // never breaking a peer's hold: it may be starting too
                LOG.info(device.name() + ": nobody held " + ownership.identity() + "; gateway " + gatewayName
                        + " took it (port group " + local.id() + " Active/Optimized)");
            }
        } catch (IOException e) { // another gateway starting at the same time won: it stays the owner
            LOG.info(device.name() + ": not the owner at start: " + e.getMessage());
        }
        g.refresh();
        g.thread.scheduleWithFixedDelay(g::refresh, pollMillis, pollMillis, TimeUnit.MILLISECONDS);
        return g;
    }

    public Mode mode() { return mode; }

    /** The LU this policy runs for. */
    public Device device() { return device; }

    /** Whether this gateway held the LU's lock at the last poll (or takeover, or handover). */
    public boolean owner() { return owner; }

    /** Sets how long a write waits for the lock (implicit mode; tests shorten it). */
    public void writeWait(Duration d) { this.writeWaitNanos = d.toNanos(); }

    /** Sets how long the holder has to hand the lock over before it is fenced (tests, the failover bench). */
    public void releaseTimeout(Duration d) { this.releaseTimeout = d; }

    /** Writes waiting for the lock now. */
    public int parkedWrites() { return parked.size(); }

    private int nonOwnerState() {
        return mode == Mode.IMPLICIT ? AluaAccessState.ACTIVE_NON_OPTIMIZED : AluaAccessState.STANDBY;
    }

    /** This gateway's entry in the shared table. */
    String registration() {
        return GatewayTable.format(gatewayName, localPorts, clientId);
    }

    /** One poll now, on the caller's thread (tests; the policy's own thread polls every {@code pollMillis}). */
    public void poll() {
        refresh();
    }

    /** One poll: ownership, the shared table, then every group's state. On the policy's thread. */
    private synchronized void refresh() {
        try {
            if (taking.get() || closed) {
                return; // the takeover publishes the states when it ends
            }
            boolean own;
            try {
                own = !lending && ownership.isOwner(); // a lock being handed over is not published as owned
            } catch (IOException e) {
                own = false;
            }
            Map<String, String> table = null;
            Set<String> live = null;
            try {
                clientId = ownership.clientId();
                table = ownership.entries(TABLE_PREFIX);
                live = ownership.liveClients();
            } catch (IOException e) {
                LOG.fine(device.name() + ": " + e.getMessage());
            }
            int ownerGroup = own ? local.id() : -1;
            if (table == null && mode == Mode.IMPLICIT && lastOwnerGroup >= 1) {
                ownerGroup = lastOwnerGroup; // an unreadable table says nothing of the owner: no flip, no UA
            }
            if (table != null) {
                Map<Integer, GatewayTable.Entry> gateways = GatewayTable.gateways(table);
                dead = liveness.update(gateways, live, local.id());
                int recorded = parseInt(table.get(OWNER_KEY));
                if (mode == Mode.IMPLICIT && recorded >= 1 && !dead.contains(recorded)) {
                    ownerGroup = recorded; // the lock moves on handovers; Active/Optimized stays with the owner
                } else {
                    ownerGroup = own ? local.id() : recorded;
                    if (!own && (ownerGroup == local.id() || dead.contains(ownerGroup))) {
                        ownerGroup = -1; // we lost it and the new owner has not said so yet, or the owner died
                    }
                }
                if (!own && !table.containsKey(OWNER_KEY) && takeIfNobodyOwns()) {
                    own = true; // the owner stopped cleanly and released the lock: the first to poll takes it
                    ownerGroup = local.id();
                }
                publishTable(table, own, ownerGroup);
                if (own) {
                    prune(gateways);
                }
                addRemoteGroups(gateways, ownerGroup);
            }
            apply(own, ownerGroup);
        } catch (RuntimeException e) { // a scheduled task that throws is never run again
            LOG.warning(device.name() + ": ALUA poll failed: " + e);
        }
    }

    /**
     * Writes this gateway's registration and, holding the lock, the owner key when the table names no live owner
     * (explicit mode: whenever it names another; implicit: a lock lent by a live owner stays the owner's).
     */
    private void publishTable(Map<String, String> table, boolean own, int ownerGroup) {
        String me = GATEWAY_PREFIX + local.id();
        try {
            if (!registration().equals(table.get(me))) {
                ownership.put(me, registration());
            }
            int recorded = parseInt(table.get(OWNER_KEY));
            if (own && recorded != local.id() && (mode == Mode.EXPLICIT || ownerGroup == local.id())) {
                ownership.put(OWNER_KEY, Integer.toString(local.id()));
            }
        } catch (IOException e) {
            LOG.fine(device.name() + ": " + e.getMessage() + " (tried again at the next poll)");
        }
    }

    /** Takes the storage when nobody holds it (never breaking a hold); false when it cannot be read or taken. */
    private boolean takeIfNobodyOwns() {
        try {
            if (!ownership.anyOwner() && ownership.tryTake()) {
                LOG.info(device.name() + ": nobody held " + ownership.identity() + " (its owner stopped); gateway "
                        + gatewayName + " took it");
                return true; // the owner key follows in publishTable
            }
        } catch (IOException e) {
            LOG.fine(device.name() + ": not taking the released lock: " + e.getMessage());
        }
        return false;
    }

    /** As the owner: removes the entries of gateways dead for {@link #PRUNE_POLLS} polls. */
    private void prune(Map<Integer, GatewayTable.Entry> gateways) {
        for (GatewayTable.Entry e : gateways.values()) {
            if (e.group() != local.id() && liveness.prunable(e.group())) {
                try {
                    ownership.remove(GATEWAY_PREFIX + e.group());
                    LOG.info(device.name() + ": removed dead gateway " + e.name() + " (port group " + e.group()
                            + ", client " + e.client() + ") from " + ownership.identity());
                } catch (IOException x) {
                    LOG.fine(device.name() + ": " + x.getMessage() + " (tried again at the next poll)");
                }
            }
        }
    }

    /**
     * The other gateways' groups, with their ports, as the table lists them; the groups of gateways that left the
     * table (stopped cleanly, or pruned dead) are removed. A group seen for the first time starts in the state this
     * poll gives it ({@link #apply}), so its appearing raises no unit attention: the second gateway of a pair comes up
     * after the first already serves initiators, whose nexuses would otherwise all get ASYMMETRIC ACCESS STATE CHANGED
     * (seen: libiscsi's MultipathIO.Simple, started as soon as both gateways listened, failed its first WRITE(10)).
     */
    private void addRemoteGroups(Map<Integer, GatewayTable.Entry> gateways, int ownerGroup) {
        for (java.util.Iterator<Integer> it = remoteGroups.iterator(); it.hasNext(); ) {
            int id = it.next();
            TargetPortGroup g = alua.group(id);
            if (!gateways.containsKey(id) && (g == null || alua.removeGroup(g))) {
                it.remove();
                LOG.info(device.name() + ": port group " + id + " left the shared table; no longer reported");
            }
        }
        for (GatewayTable.Entry e : gateways.values()) {
            int id = e.group();
            if (id == local.id()) {
                continue;
            }
            String name = e.name();
            List<Integer> ports = e.ports();
            TargetPortGroup g = alua.group(id);
            if (g == null) {
                try {
                    g = alua.addGroup(id, name, new AluaAccessState(stateOf(id, ownerGroup),
                            AluaAccessState.STATUS_IMPLICIT, false));
                } catch (IllegalArgumentException raced) {
                    g = alua.group(id);
                }
            }
            remoteGroups.add(id);
            if (!g.remotePorts().equals(ports)) {
                g.remotePorts(ports);
            }
        }
    }

    /**
     * The owner's group Active/Optimized, every other gateway's group the non-owner state, each with status
     * "implicit" (so that the REPORT TARGET PORT GROUPS of every gateway match byte for byte); {@link #owner} last, so
     * that whoever sees it set sees the states too.
     */
    private void apply(boolean own, int ownerGroup) {
        lastOwnerGroup = ownerGroup;
        if (!own) {
            owner = false; // first: the I/O path stops admitting writes before the states say so
        }
        for (TargetPortGroup g : alua.groups()) {
            if (g != local && g.remotePorts().isEmpty()) {
                continue; // the device's default group and groups of no gateway
            }
            int state = g != local ? stateOf(g.id(), ownerGroup)
                    : g.id() == ownerGroup ? AluaAccessState.ACTIVE_OPTIMIZED : nonOwnerState();
            if (alua.transition(g, state)) {
                LOG.info(device.name() + ": port group " + g.id() + " (" + g.name() + ") now " + stateName(state)
                        + (state == AluaAccessState.OFFLINE ? " (its gateway's client left " + ownership.identity()
                        + ")" : ""));
            }
            AluaAccessState cur = g.accessState();
            if (cur.state() == state && cur.status() != AluaAccessState.STATUS_IMPLICIT) { // same state: no UA
                g.accessState(cur.withState(state, AluaAccessState.STATUS_IMPLICIT));
            }
        }
        owner = own;
    }

    /** The state of another gateway's group {@code id}: Offline when its gateway is dead, else by ownership. */
    private int stateOf(int id, int ownerGroup) {
        return dead.contains(id) ? AluaAccessState.OFFLINE
                : id == ownerGroup ? AluaAccessState.ACTIVE_OPTIMIZED : nonOwnerState();
    }

    @Override
    public boolean admitsWrite(TargetPortGroup g) {
        if (g != local) {
            writers.incrementAndGet(); // not a port of this gateway's: a group of no gateway, counted alike
            return true;
        }
        if (!owner) {
            return false;
        }
        writers.incrementAndGet(); // then re-read owner: a handover clears it, then reads writers (event)
        if (owner) {
            return true;
        }
        writers.decrementAndGet();
        return false;
    }

    @Override
    public void writeDone() {
        writers.decrementAndGet();
    }

    @Override
    public int parkWrite(TargetPortGroup g, WriteWaiter w, long waitNanos) {
        if (mode != Mode.IMPLICIT || g != local) {
            return REFUSE; // explicit: SET TARGET PORT GROUPS moves ownership, writes do not
        }
        if (!parked.park(w, waitNanos < 0 ? writeWaitNanos : waitNanos)) {
            return REFUSE;
        }
        acquire(false, failure -> { });
        return PARKED;
    }

    @Override
    public void releaseAborted() {
        parked.releaseAborted();
    }

    @Override
    public void explicitRequest(List<TargetPortGroup> groups, int[] states, Consumer<SenseReason> done) {
        for (int i = 0; i < groups.size(); i++) {
            if (groups.get(i) == local && states[i] == AluaAccessState.ACTIVE_OPTIMIZED) {
                acquire(true, done);
                return;
            }
        }
        done.accept(null); // the other states follow ownership: nothing to do here
    }

    /**
     * Gets the lock here, once at a time, on the policy's thread; then every parked write runs. {@code done} gets
     * null when this gateway holds the lock, else STPG_FAILED.
     *
     * @param record explicit (SET TARGET PORT GROUPS): this gateway becomes the recorded owner, Active/Optimized,
     *               even after a plain handover; it reports TRANSITIONING meanwhile
     */
    private void acquire(boolean record, Consumer<SenseReason> done) {
        if (owner && !record) {
            done.accept(null);
            thread.execute(this::admitParked); // a write parked just as the lock arrived
            return;
        }
        if (!taking.compareAndSet(false, true)) {
            thread.execute(() -> { // after the one running; it may not have recorded this gateway
                if (record && owner) {
                    acquire(true, done);
                } else {
                    done.accept(owner ? null : SenseReason.STPG_FAILED);
                    if (!owner && !parked.isEmpty()) {
                        acquire(false, f -> { }); // parked while the last attempt ended without the lock
                    }
                }
            });
            return;
        }
        if (record) {
            alua.transition(local, AluaAccessState.TRANSITIONING);
        }
        thread.execute(() -> {
            SenseReason failure = null;
            try {
                takeLock(record);
            } catch (IOException | RuntimeException e) {
                LOG.warning(device.name() + ": taking " + ownership.identity() + " failed: " + e.getMessage());
                failure = SenseReason.STPG_FAILED;
                if (record) {
                    apply(false, -1);
                }
            } finally {
                taking.set(false);
            }
            if (owner) {
                admitParked();
            } else if (failure != null) {
                parked.refuseAll(); // 04h/0Ah now: the initiator may try another path at once
            } else if (!parked.isEmpty()) {
                acquire(false, f -> { }); // parked while the last attempt ended without the lock
            }
            done.accept(failure);
        });
    }

    /**
     * Runs the parked writes under this policy's monitor, so that a handover asked meanwhile ({@link #event}) comes
     * after they were admitted (counted in {@link #writers}) and waits for them: every handover lets the writes
     * that waited for it through, and two gateways writing at once cannot pass the lock back and forth forever.
     */
    private void admitParked() {
        synchronized (this) {
            parked.admitAll();
        }
    }

    /**
     * Handover, else break: asks the holder to release (it acknowledges at once, then lets go), takes the free lock;
     * while another gateway wins the free lock, asks that one, for as long as writes wait (or once, for STPG); breaks
     * the lock (fencing the holder) when the holder did not acknowledge, when there is no store to ask through, or
     * when the lock is still held {@link #lendBound()} after the first acknowledged ask (a holder stuck in its
     * release; one whose watch already expired cannot answer, and the notify finds nobody to wait for).
     */
    private void takeLock(boolean record) throws IOException {
        long start = System.nanoTime();
        SharedReservations sr = device.reservations().shared();
        boolean forced = false;
        while (true) {
            while (lending) { // this gateway is handing the lock over: take it back once that has ended
                sleepQuietly(RETRY_MILLIS);
            }
            forced |= obtain(record, sr);
            if (forced || record) {
                try {
                    ownership.put(OWNER_KEY, Integer.toString(local.id()));
                } catch (IOException e) {
                    LOG.warning(device.name() + ": took the lock, but cannot record the owner: " + e.getMessage());
                }
            }
            int ao = forced || record ? local.id() : recordedOwner();
            synchronized (this) { // not in the middle of a handover this gateway is asked for (event)
                // Still the holder? A handover asked between the take (or obtain's isOwner) and this hold ran
                // event() first, which let the lock go: publishing owner now would admit writes to a lock another
                // gateway holds (librbd answers them EROFS: the conformance run's COMPARE AND WRITEs). Ask again.
                if (!lending && ownership.isOwner()) {
                    apply(true, ao);
                    parked.admitAll(); // in the same hold: a handover asked meanwhile waits for these writes
                    break;
                }
            }
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (forced || record) {
            LOG.info(device.name() + ": gateway " + gatewayName + (forced ? " broke and took " : " was handed ")
                    + ownership.identity() + " in " + ms + " ms; now the owner (port group " + local.id()
                    + " Active/Optimized)");
        } else if (ms >= SLOW_HANDOVER_MILLIS) { // the figure that says how short the release timeout can be
            LOG.info(device.name() + ": gateway " + gatewayName + " borrowed " + ownership.identity() + " in " + ms
                    + " ms (slow handover)");
        } else {
            LOG.fine(() -> device.name() + ": gateway " + gatewayName + " borrowed " + ownership.identity() + " in "
                    + ms + " ms");
        }
    }

    /**
     * Gets the lock unless this client holds it: asks the holder and takes the free lock, or breaks it (see
     * {@link #takeLock}); true when it broke the lock. A holder that does not acknowledge within the release timeout
     * (dead, frozen, cut off from RADOS: the store's notify fences it) is broken at once; one that acknowledged is
     * alive and releasing: the lock is looked at every {@link #WAIT_FREE_NANOS} and the holder asked again every
     * {@link #ASK_AGAIN_NANOS} until the lock is free, and it is broken only when it
     * still holds the lock {@link #lendBound()} after its first acknowledgement (a holder whose watch already expired
     * acknowledges nothing and holds on: it ends there too).
     */
    private boolean obtain(boolean record, SharedReservations sr) throws IOException {
        long firstAck = 0;
        long lastAsk = 0;
        while (!ownership.isOwner()) {
            if (!ownership.anyOwner()) {
                if (ownership.tryTake()) {
                    return false;
                }
                firstAck = 0; // handed over, but another gateway took it first: that one is asked from now on
            } else if (sr == null) {
                ownership.take(); // no store to ask through
                return true;
            } else {
                long now = System.nanoTime();
                if (firstAck == 0 || now - lastAsk >= ASK_AGAIN_NANOS) {
                    // asked again now and then: a holder between its take and its publishing ignores the first
                    if (!sr.broadcast(LuEvent.Kind.RELEASE, local.id(), releaseTimeout)) {
                        ownership.take(); // the holder is silent (and fenced by the store's notify), or gone
                        return true;
                    }
                    lastAsk = System.nanoTime();
                    if (firstAck == 0) {
                        firstAck = lastAsk;
                    }
                } else if (now - firstAck - lendBound().toNanos() > 0) {
                    LOG.warning(device.name() + ": the holder of " + ownership.identity() + " acknowledged the"
                            + " handover but still holds it after " + lendBound().toMillis() + " ms; breaking it");
                    ownership.take();
                    return true;
                }
            }
            if (!record && parked.isEmpty()) {
                throw new IOException("no write waits for " + ownership.identity() + " any more");
            }
            LockSupport.parkNanos(WAIT_FREE_NANOS); // then look at the lock again (one OSD read)
        }
        return false;
    }

    /** How long a holder that acknowledged a handover has to release the lock: at least the release timeout. */
    private Duration lendBound() {
        Duration r = releaseTimeout;
        Duration l = lendBound;
        return r.compareTo(l) > 0 ? r : l;
    }

    /** Sets how long an acknowledging holder has to release the lock (tests); at least the release timeout counts. */
    public void lendBound(Duration d) { this.lendBound = d; }

    /**
     * The recorded owner's group; when the table cannot be read, the group last published Active/Optimized (a
     * lending moves no state); this gateway's only when no owner is recorded (publishTable then records it).
     */
    private int recordedOwner() {
        try {
            int g = parseInt(ownership.entries(TABLE_PREFIX).get(OWNER_KEY));
            return g >= 1 ? g : local.id();
        } catch (IOException e) {
            return lastOwnerGroup >= 1 ? lastOwnerGroup : local.id();
        }
    }

    /**
     * Another gateway's event: a handover request. When this gateway holds the lock it stops admitting writes (new
     * ones park and will ask for the lock back) and returns at once, which acknowledges the notify: the asking gateway
     * then knows the holder is alive and waits for the lock instead of breaking it. The handover itself runs on the
     * lender thread ({@link #lend}). On the reservation store's delivery thread.
     *
     * <p>Why acknowledge before releasing: the release waits for the writes this gateway admitted and for librbd to
     * finish them, which on a loaded host can outlast the release timeout; a requester whose notify timed out would
     * fence this live gateway and move Active/Optimized (ASYMMETRIC ACCESS STATE CHANGED on every nexus of both).
     */
    private void event(LuEvent e) {
        if (e.kind() != LuEvent.Kind.RELEASE || e.code() == local.id()) {
            return;
        }
        // under the monitor: a poll or takeover that read "owner" before this must not publish it after (both check
        // lending under the same monitor)
        synchronized (this) {
            if (!owner || closed || lending) {
                return;
            }
            owner = false; // volatile: writes admitted after this park instead of reaching a lock we let go
            lending = true;
        }
        long asked = System.nanoTime();
        try {
            lender.execute(() -> lend(e.code(), asked));
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            synchronized (this) {
                lending = false; // close() releases the lock itself
            }
        }
    }

    /**
     * The handover asked at {@code asked}: waits (at most half the {@link #lendBound()}) for the writes this gateway
     * admitted to end, then releases the lock (librbd finishes the writes in flight first). On the lender thread.
     */
    private void lend(int to, long asked) {
        long deadline = asked + lendBound().toNanos() / 2;
        while (writers.get() > 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(100_000); // the admitted writes complete on the backstore's threads
        }
        synchronized (this) {
            try {
                if (closed) {
                    return; // close() released the lock
                }
                if (writers.get() > 0) {
                    LOG.warning(device.name() + ": " + writers.get() + " admitted write(s) still running after "
                            + lendBound().toMillis() / 2 + " ms; handing " + ownership.identity() + " over anyway");
                }
                ownership.release();
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
                if (ms >= SLOW_HANDOVER_MILLIS) {
                    LOG.info(device.name() + ": lent " + ownership.identity() + " to port group " + to + " in " + ms
                            + " ms (slow handover: writes in flight, then rbd_lock_release)");
                } else {
                    LOG.fine(() -> device.name() + ": lent " + ownership.identity() + " to port group " + to + " in "
                            + ms + " ms");
                }
            } catch (IOException | RuntimeException ex) {
                LOG.warning(device.name() + ": cannot hand " + ownership.identity() + " to port group " + to + ": "
                        + ex.getMessage() + " (it will break the lock)");
            } finally {
                lending = false;
            }
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String stateName(int state) {
        return switch (state) {
            case AluaAccessState.ACTIVE_OPTIMIZED -> "Active/Optimized";
            case AluaAccessState.ACTIVE_NON_OPTIMIZED -> "Active/Non-optimized";
            case AluaAccessState.STANDBY -> "Standby";
            case AluaAccessState.OFFLINE -> "Offline";
            default -> "state " + state;
        };
    }

    private static int parseInt(String s) {
        return GatewayTable.parseInt(s);
    }

    /**
     * Stops polling and leaves the shared table (a clean stop, or the LU's export removed by a reload): removes this
     * gateway's entry; as the owner, removes the owner key and releases the lock, so that the others report no dead
     * owner and the first of them to poll takes the lock without fencing anyone. The LU's state here stays as last
     * published. Failures are logged: the survivors then find this gateway dead by its client instead.
     */
    @Override
    public void close() {
        alua.shared(null);
        SharedReservations sr = device.reservations().shared();
        if (sr != null) {
            sr.listener(null);
        }
        thread.shutdownNow();
        lender.shutdown(); // a handover under way ends (it releases the lock); none starts any more
        try {
            // a takeover under way calls into the image (lock break/acquire, metadata): it must end before this
            // gateway leaves the table and before the backstore closes the image under it (librbd aborts the
            // process on a call into an image being closed)
            if (!thread.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.warning(device.name() + ": a takeover of " + ownership.identity() + " still runs after "
                        + CLOSE_WAIT_SECONDS + " s; leaving the shared table anyway");
            }
            if (!lender.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.warning(device.name() + ": a handover of " + ownership.identity() + " still runs after "
                        + CLOSE_WAIT_SECONDS + " s; leaving the shared table anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        parked.refuseAll(); // 04h/0Ah: the lock will not come to this gateway any more
        synchronized (this) { // after a poll under way
            if (closed) {
                return;
            }
            closed = true;
            owner = false;
            try {
                ownership.remove(GATEWAY_PREFIX + local.id());
                if (ownership.isOwner()) {
                    ownership.remove(OWNER_KEY); // while still the owner: the owner's metadata writes are its own
                    ownership.release();
                    LOG.info(device.name() + ": gateway " + gatewayName + " released " + ownership.identity()
                            + " for the other gateways");
                }
            } catch (IOException | RuntimeException e) {
                LOG.warning(device.name() + ": leaving the shared table of " + ownership.identity() + " failed: "
                        + e.getMessage() + " (the other gateways will find this one gone by its client)");
            }
        }
    }
}
