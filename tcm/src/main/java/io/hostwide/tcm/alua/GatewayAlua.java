package io.hostwide.tcm.alua;

import io.hostwide.tcm.lu.AluaAccessState;
import io.hostwide.tcm.lu.AluaGroups;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.SharedAccess;
import io.hostwide.tcm.lu.TargetPortGroup;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.SharedOwnership;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * <p>Threads: one daemon thread per LU runs the polls and takeovers (they block on the cluster); the I/O path only
 * reads {@link #owner}, a volatile.
 */
public final class GatewayAlua implements SharedAccess, AutoCloseable {
    private static final Logger LOG = Logger.getLogger("io.hostwide.tcm.alua");
    /** The shared table's keys. */
    public static final String GATEWAY_PREFIX = "hostwide.gw.";
    public static final String OWNER_KEY = "hostwide.alua.owner";

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

    /** Whether this gateway owned the LU at the last poll (or takeover). */
    public boolean owner() { return owner; }

    private int nonOwnerState() {
        return mode == Mode.IMPLICIT ? AluaAccessState.ACTIVE_NON_OPTIMIZED : AluaAccessState.STANDBY;
    }

    /** This gateway's entry in the shared table. */
    String registration() {
        StringBuilder sb = new StringBuilder("name=").append(gatewayName).append(";rtpi=");
        for (int i = 0; i < localPorts.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(localPorts.get(i));
        }
        return sb.toString();
    }

    /** One poll now, on the caller's thread (tests; the policy's own thread polls every {@code pollMillis}). */
    public void poll() {
        refresh();
    }

    /** One poll: ownership, the shared table, then every group's state. On the policy's thread. */
    private synchronized void refresh() {
        try {
            if (taking.get()) {
                return; // the takeover publishes the states when it ends
            }
            boolean own;
            try {
                own = ownership.isOwner();
            } catch (IOException e) {
                own = false;
            }
            Map<String, String> table = null;
            try {
                table = ownership.entries("hostwide.");
            } catch (IOException e) {
                LOG.fine(device.name() + ": " + e.getMessage());
            }
            int ownerGroup = own ? local.id() : -1;
            if (table != null) {
                ownerGroup = own ? local.id() : parseInt(table.get(OWNER_KEY));
                if (!own && ownerGroup == local.id()) {
                    ownerGroup = -1; // we lost it and the new owner has not said so yet
                }
                publishTable(table, own);
                addRemoteGroups(table);
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

    /** The other gateways' groups, with their ports, as the table lists them. */
    private void addRemoteGroups(Map<String, String> table) {
        for (Map.Entry<String, String> e : table.entrySet()) {
            if (!e.getKey().startsWith(GATEWAY_PREFIX)) {
                continue;
            }
            int id = parseInt(e.getKey().substring(GATEWAY_PREFIX.length()));
            if (id < 1 || id > 0xFFFF || id == local.id()) {
                continue;
            }
            String name = "gateway";
            List<Integer> ports = new ArrayList<>();
            for (String field : e.getValue().split(";")) {
                if (field.startsWith("name=")) {
                    name = field.substring(5);
                } else if (field.startsWith("rtpi=")) {
                    for (String p : field.substring(5).split(",")) {
                        int rtpi = parseInt(p);
                        if (rtpi >= 1 && rtpi <= 0xFFFF) {
                            ports.add(rtpi);
                        }
                    }
                }
            }
            TargetPortGroup g = alua.group(id);
            if (g == null) {
                try {
                    g = alua.addGroup(id, name);
                } catch (IllegalArgumentException raced) {
                    g = alua.group(id);
                }
            }
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
            int state = g.id() == ownerGroup ? AluaAccessState.ACTIVE_OPTIMIZED : nonOwnerState();
            if (alua.transition(g, state)) {
                LOG.info(device.name() + ": port group " + g.id() + " (" + g.name() + ") now "
                        + (state == AluaAccessState.ACTIVE_OPTIMIZED ? "Active/Optimized" : mode == Mode.IMPLICIT
                        ? "Active/Non-optimized" : "Standby"));
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

    private static int parseInt(String s) {
        if (s == null) {
            return -1;
        }
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Stops polling; the LU's state stays as last published. */
    @Override
    public void close() {
        alua.shared(null);
        thread.shutdownNow();
    }
}
