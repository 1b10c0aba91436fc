package io.hostwide.tcm.lu;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.tcm.spi.Background;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The target port groups of one logical unit (SPC-4 §5.15.2; LIO keeps tg_pt_gps per se_device) and their
 * transitions. Group 0 is the device's default group, every new LUN export starts in it.
 *
 * <p>A state change is one volatile write of a new immutable {@link AluaAccessState} into the group, and moving
 * an export to another group is one volatile write of the LUN's group reference (never a transient null, seed
 * 002 patch 5): I/O reads both without a lock. Writers serialise on this object. Every change raises ASYMMETRIC
 * ACCESS STATE CHANGED (2Ah/06h) for the LU's I_T nexuses — except the one that sent SET TARGET PORT GROUPS.
 *
 * <p>Transition delay (SPC-4 §5.15.2.5; LIO trans_delay_msecs): a group with {@link
 * TargetPortGroup#transitionDelayMillis()} first publishes TRANSITIONING (its commands then end NOT READY /
 * ASYMMETRIC ACCESS STATE TRANSITION, 04h/0Ah), and the new state is published, with the unit attention, that
 * long after, by a task on the core's {@link Background} executor. A later transition of the same group
 * supersedes a pending one (an epoch per group, guarded by this object's monitor).
 */
public final class AluaGroups {
    /** REPORT TARGET PORT GROUPS supported states byte: T_SUP O_SUP U_SUP S_SUP AN_SUP AO_SUP (LBD not). */
    public static final int SUPPORTED_STATES = 0xCF;

    private final Device device;
    private final List<TargetPortGroup> groups = new CopyOnWriteArrayList<>();
    private final Map<TargetPortGroup, Long> epochs = new IdentityHashMap<>(); // guarded by this
    private volatile Supplier<Background> background;
    private volatile SharedAccess shared;

    /** {@link #transition} outcomes. */
    public static final int UNCHANGED = 0;
    public static final int DONE = 1;
    /** The group is TRANSITIONING; the {@code whenDone} callback runs once the new state is published. */
    public static final int PENDING = 2;

    public AluaGroups(Device device) {
        this.device = device;
        groups.add(device.defaultPortGroup());
    }

    public List<TargetPortGroup> groups() { return List.copyOf(groups); }

    public TargetPortGroup group(int id) {
        for (TargetPortGroup g : groups) {
            if (g.id() == id) {
                return g;
            }
        }
        return null;
    }

    /** Adds a target port group with a new identifier (1..65535). */
    public TargetPortGroup addGroup(int id, String name) {
        return addGroup(id, name, AluaAccessState.INITIAL);
    }

    /**
     * Adds a target port group with a new identifier (1..65535) that is in {@code initial} from the start: no nexus
     * has seen it in another state, so its appearing is no ASYMMETRIC ACCESS STATE CHANGED (another gateway's group,
     * learnt from the shared table, {@code io.hostwide.tcm.alua.GatewayAlua}).
     */
    public synchronized TargetPortGroup addGroup(int id, String name, AluaAccessState initial) {
        if (group(id) != null) {
            throw new IllegalArgumentException("target port group " + id + " exists on " + device.name());
        }
        TargetPortGroup g = new TargetPortGroup(id, name);
        g.accessState(initial);
        groups.add(g);
        return g;
    }

    /**
     * Removes a group that no LUN export of this process is in (another gateway's group that left the shared
     * table, {@code io.hostwide.tcm.alua.GatewayAlua}); the default group stays.
     *
     * @return false when {@code g} is the default group, is not this device's, or an I_T nexus reaches the LU
     *         through it
     */
    public synchronized boolean removeGroup(TargetPortGroup g) {
        if (g == device.defaultPortGroup() || !groups.contains(g)) {
            return false;
        }
        for (SessionLun l : device.nexuses()) {
            if (l.lun().aluaGroup() == g) {
                return false;
            }
        }
        epochs.remove(g);
        return groups.remove(g);
    }

    /**
     * Moves a LUN export of this device into {@code g} in one step; its nexuses get INQUIRY DATA HAS CHANGED
     * (VPD 83h now names another group) and ASYMMETRIC ACCESS STATE CHANGED when the state differs.
     */
    public synchronized void assign(Lun lun, TargetPortGroup g) {
        if (lun.device() != device || !groups.contains(g)) {
            throw new IllegalArgumentException(lun + " / " + g + " do not belong to " + device.name());
        }
        TargetPortGroup old = lun.aluaGroup();
        if (old == g) {
            return;
        }
        lun.aluaGroup(g);
        for (SessionLun l : device.nexuses()) {
            if (l.lun() == lun) {
                l.unitAttentions().add(Asc.INQUIRY_DATA_HAS_CHANGED);
                if (old.accessState().state() != g.accessState().state()) {
                    l.unitAttentions().add(Asc.ASYMMETRIC_ACCESS_STATE_CHANGED);
                }
            }
        }
    }

    /** The policy of an LU shared by several gateway processes (null: an ordinary LU), see {@link SharedAccess}. */
    public SharedAccess shared() { return shared; }

    public void shared(SharedAccess s) { this.shared = s; }

    /** Where delayed transitions complete (the core's executor); without one every transition is immediate. */
    public void background(Supplier<Background> b) { this.background = b; }

    /**
     * An implicit transition (management, failover logic): every I_T nexus is told once the group has reached
     * {@code state}, after its transition delay.
     *
     * @return false when the group already was in that state, with no transition pending
     */
    public boolean transition(TargetPortGroup g, int state) {
        return transition(g, state, AluaAccessState.STATUS_IMPLICIT, null, () -> {}) != UNCHANGED;
    }

    /**
     * Sets a group's state, after its transition delay; {@code source} (the SET TARGET PORT GROUPS nexus) is not
     * told.
     *
     * @param whenDone runs once the state is published (on the executor's thread), only when this returns PENDING
     * @return {@link #UNCHANGED} (already in that state, nothing pending), {@link #DONE} or {@link #PENDING}
     */
    public synchronized int transition(TargetPortGroup g, int state, int status, ItNexus source, Runnable whenDone) {
        AluaAccessState cur = g.accessState();
        boolean pending = cur.state() == AluaAccessState.TRANSITIONING && epochs.containsKey(g);
        if (cur.state() == state && !pending) {
            return UNCHANGED;
        }
        long epoch = epochs.merge(g, 1L, Long::sum); // supersedes a pending transition of g
        Supplier<Background> bs = background;
        long delay = g.transitionDelayMillis();
        if (delay == 0 || state == AluaAccessState.TRANSITIONING || bs == null) {
            epochs.remove(g);
            publish(g, cur.withState(state, status), source);
            return DONE;
        }
        g.accessState(cur.withState(AluaAccessState.TRANSITIONING, status)); // atomic swap: I/O sees 04h/0Ah
        bs.get().schedule(() -> finish(g, epoch, state, status, source, whenDone), TimeUnit.MILLISECONDS.toNanos(delay));
        return PENDING;
    }

    /** The delayed end of a transition: publishes {@code state} unless a later transition superseded it. */
    private void finish(TargetPortGroup g, long epoch, int state, int status, ItNexus source, Runnable whenDone) {
        synchronized (this) {
            Long now = epochs.get(g);
            if (now != null && now == epoch) {
                epochs.remove(g);
                publish(g, g.accessState().withState(state, status), source);
            }
        }
        whenDone.run();
    }

    /** The one atomic swap I/O observes, then ASYMMETRIC ACCESS STATE CHANGED for every nexus but the source. */
    private void publish(TargetPortGroup g, AluaAccessState next, ItNexus source) {
        g.accessState(next);
        for (SessionLun l : device.nexuses()) {
            if (l.session() != source) {
                l.unitAttentions().add(Asc.ASYMMETRIC_ACCESS_STATE_CHANGED);
            }
        }
    }

    /** The PREF bit of a group (SPC-4 §6.27). */
    public synchronized void preferred(TargetPortGroup g, boolean preferred) {
        AluaAccessState cur = g.accessState();
        g.accessState(new AluaAccessState(cur.state(), cur.status(), preferred));
    }

}
