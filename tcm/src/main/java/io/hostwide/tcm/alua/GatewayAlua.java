package io.hostwide.tcm.alua;

import io.hostwide.tcm.lu.AluaAccessState;
import io.hostwide.tcm.lu.AluaGroups;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.SharedAccess;
import io.hostwide.tcm.lu.TargetPortGroup;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.SharedOwnership;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * ALUA for one LU exported by several gateway processes (issue 16): the owner of the shared storage (an RBD
 * image's exclusive lock, {@link SharedOwnership}) is Active/Optimized; every other gateway's target port group is
 * Active/Non-optimized ({@link Mode#IMPLICIT}) or Standby ({@link Mode#EXPLICIT}). Ceph's gateways work this way
 * (ceph-iscsi with tcmu-runner).
 *
 * <p>Shared table (the image metadata): each gateway registers {@code hostwide.gw.<port group>} =
 * {@code name=<gateway>;rtpi=<relative port ids>}, and the owner keeps {@code hostwide.alua.owner} = its port group.
 * Every gateway reads both every {@code pollMillis} and adds the other gateways' groups with their ports to its
 * {@link AluaGroups}, so REPORT TARGET PORT GROUPS answers alike on every gateway.
 *
 * <p>Ownership moves: in implicit mode, the first command that writes the medium through a non-owner gateway starts
 * a takeover and ends NOT READY / ASYMMETRIC ACCESS STATE TRANSITION (SPC-4 §5.15.2.5), as do the writes after it
 * while the group is TRANSITIONING; in explicit mode, SET TARGET PORT GROUPS asking Active/Optimized for this
 * gateway's group does it, and completes when it is done. A takeover breaks the previous owner's lock, which
 * fences it (librbd blocklists it), then takes the lock. A gateway that notices at its next poll that it no longer
 * owns the LU moves its group to the non-owner state, with ASYMMETRIC ACCESS STATE CHANGED for its nexuses.
 *
 * <p>Lifecycle ({@link GatewayTable}): each entry names the gateway's client of the storage; a gateway whose client
 * has left the storage (RBD: the image's watchers) for a few polls is dead, its group is reported Offline, and the
 * owner removes its entry a while later. A gateway that stops cleanly ({@link #close()}) removes its entry and, as
 * the owner, the owner key, then releases the lock: the others see no owner and the first to poll takes it, with
 * nobody fenced.
 *
 * <p>Threads: one daemon thread per LU runs the polls and takeovers (they block on the cluster); the I/O path only
 * reads {@link #owner}, a volatile.
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
    /** How long close() waits for a poll or takeover under way on the policy thread. */
    private static final long CLOSE_WAIT_SECONDS = 30;

    /** How a non-owner gateway's group is reported, and what moves ownership to it. */
    public enum Mode {
        /** Non-owners are Active/Non-optimized; a write through one moves ownership there. */
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
    /** Whether this gateway owned the LU at the last poll or takeover; read by the I/O path. */
    private volatile boolean owner;

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

    /** Whether this gateway owned the LU at the last poll (or takeover). */
    public boolean owner() { return owner; }

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
                own = ownership.isOwner();
            } catch (IOException e) {
                own = false;
            }
            Map<String, String> table = null;
            Set<String> live = null;
            try {
                clientId = ownership.clientId();
                table = ownership.entries("hostwide.");
                live = ownership.liveClients();
            } catch (IOException e) {
                LOG.fine(device.name() + ": " + e.getMessage());
            }
            int ownerGroup = own ? local.id() : -1;
            if (table != null) {
                Map<Integer, GatewayTable.Entry> gateways = GatewayTable.gateways(table);
                dead = liveness.update(gateways, live, local.id());
                ownerGroup = own ? local.id() : parseInt(table.get(OWNER_KEY));
                if (!own && (ownerGroup == local.id() || dead.contains(ownerGroup))) {
                    ownerGroup = -1; // we lost it and the new owner has not said so yet, or the owner died
                }
                if (!own && !table.containsKey(OWNER_KEY) && takeIfNobodyOwns()) {
                    own = true; // the owner stopped cleanly and released the lock: the first to poll takes it
                    ownerGroup = local.id();
                }
                publishTable(table, own);
                if (own) {
                    prune(gateways);
                }
                addRemoteGroups(gateways);
            }
            apply(own, ownerGroup);
        } catch (RuntimeException e) { // a scheduled task that throws is never run again
            LOG.warning(device.name() + ": ALUA poll failed: " + e);
        }
    }

    /** Writes this gateway's registration and, as the owner, the owner key, when the table lacks them. */
    private void publishTable(Map<String, String> table, boolean own) {
        String me = GATEWAY_PREFIX + local.id();
        try {
            if (!registration().equals(table.get(me))) {
                ownership.put(me, registration());
            }
            if (own && parseInt(table.get(OWNER_KEY)) != local.id()) {
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
     * table (stopped cleanly, or pruned dead) are removed.
     */
    private void addRemoteGroups(Map<Integer, GatewayTable.Entry> gateways) {
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
                    g = alua.addGroup(id, name);
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
        if (!own) {
            owner = false; // first: the I/O path stops admitting writes before the states say so
        }
        for (TargetPortGroup g : alua.groups()) {
            if (g != local && g.remotePorts().isEmpty()) {
                continue; // the device's default group and groups of no gateway
            }
            int state = g != local && dead.contains(g.id()) ? AluaAccessState.OFFLINE
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

    @Override
    public boolean admitsWrite(TargetPortGroup g) {
        if (owner || g != local) {
            return true;
        }
        if (mode == Mode.IMPLICIT) {
            takeover(failure -> { });
        }
        return false;
    }

    @Override
    public void explicitRequest(List<TargetPortGroup> groups, int[] states, Consumer<SenseReason> done) {
        for (int i = 0; i < groups.size(); i++) {
            if (groups.get(i) == local && states[i] == AluaAccessState.ACTIVE_OPTIMIZED) {
                takeover(done);
                return;
            }
        }
        done.accept(null); // the other states follow ownership: nothing to do here
    }

    /**
     * Moves ownership here, once at a time: this gateway's group reports TRANSITIONING meanwhile; {@code done}
     * gets null when this gateway owns the LU, else STPG_FAILED.
     */
    private void takeover(Consumer<SenseReason> done) {
        if (owner) {
            done.accept(null);
            return;
        }
        if (!taking.compareAndSet(false, true)) {
            thread.execute(() -> done.accept(owner ? null : SenseReason.STPG_FAILED)); // after the one running
            return;
        }
        alua.transition(local, AluaAccessState.TRANSITIONING);
        thread.execute(() -> {
            SenseReason failure = null;
            try {
                long start = System.nanoTime();
                ownership.take();
                try {
                    ownership.put(OWNER_KEY, Integer.toString(local.id()));
                } catch (IOException e) {
                    LOG.warning(device.name() + ": took the lock, but cannot record the owner: " + e.getMessage());
                }
                apply(true, local.id());
                LOG.info(device.name() + ": gateway " + gatewayName + " took " + ownership.identity() + " in "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
            } catch (IOException | RuntimeException e) {
                LOG.warning(device.name() + ": taking " + ownership.identity() + " failed: " + e.getMessage());
                failure = SenseReason.STPG_FAILED;
                apply(false, -1);
            } finally {
                taking.set(false);
            }
            done.accept(failure);
        });
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
        thread.shutdownNow();
        try {
            // a takeover under way calls into the image (lock break/acquire, metadata): it must end before this
            // gateway leaves the table and before the backstore closes the image under it (librbd aborts the
            // process on a call into an image being closed)
            if (!thread.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.warning(device.name() + ": a takeover of " + ownership.identity() + " still runs after "
                        + CLOSE_WAIT_SECONDS + " s; leaving the shared table anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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
