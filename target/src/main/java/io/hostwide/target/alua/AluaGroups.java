package io.hostwide.target.alua;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.target.Session;
import io.hostwide.target.SessionLun;
import io.hostwide.target.model.AluaAccessState;
import io.hostwide.target.model.Device;
import io.hostwide.target.model.Lun;
import io.hostwide.target.model.TargetPortGroup;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The target port groups of one logical unit (SPC-4 §5.15.2; LIO keeps tg_pt_gps per se_device) and their
 * transitions. Group 0 is the device's default group, every new LUN export starts in it.
 *
 * <p>A state change is one volatile write of a new immutable {@link AluaAccessState} into the group, and moving
 * an export to another group is one volatile write of the LUN's group reference (never a transient null, seed
 * 002 patch 5): I/O reads both without a lock. Writers serialise on this object. Every change raises ASYMMETRIC
 * ACCESS STATE CHANGED (2Ah/06h) for the LU's I_T nexuses — except the one that sent SET TARGET PORT GROUPS.
 * Transitions are immediate (no transition delay), so TRANSITIONING is only entered when set implicitly.
 */
public final class AluaGroups {
    /** REPORT TARGET PORT GROUPS supported states byte: T_SUP O_SUP U_SUP S_SUP AN_SUP AO_SUP (LBD not). */
    public static final int SUPPORTED_STATES = 0xCF;

    private final Device device;
    private final List<TargetPortGroup> groups = new CopyOnWriteArrayList<>();
    private volatile int implicitTransitionTimeSeconds;

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
    public synchronized TargetPortGroup addGroup(int id, String name) {
        if (group(id) != null) {
            throw new IllegalArgumentException("target port group " + id + " exists on " + device.name());
        }
        TargetPortGroup g = new TargetPortGroup(id, name);
        groups.add(g);
        return g;
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

    /** An implicit transition (management, failover logic): every I_T nexus is told. */
    public boolean transition(TargetPortGroup g, int state) {
        return transition(g, state, AluaAccessState.STATUS_IMPLICIT, null);
    }

    /**
     * Sets a group's state; {@code source} (the SET TARGET PORT GROUPS nexus) is not told.
     *
     * @return false when the group already was in that state (nothing changes, no unit attention)
     */
    synchronized boolean transition(TargetPortGroup g, int state, int status, Session source) {
        AluaAccessState cur = g.accessState();
        if (cur.state() == state) {
            return false;
        }
        g.accessState(cur.withState(state, status)); // the one atomic swap I/O observes
        for (SessionLun l : device.nexuses()) {
            if (l.session() != source) {
                l.unitAttentions().add(Asc.ASYMMETRIC_ACCESS_STATE_CHANGED);
            }
        }
        return true;
    }

    /** The PREF bit of a group (SPC-4 §6.27). */
    public synchronized void preferred(TargetPortGroup g, boolean preferred) {
        AluaAccessState cur = g.accessState();
        g.accessState(new AluaAccessState(cur.state(), cur.status(), preferred));
    }

    /** IMPLICIT TRANSITION TIME of the extended REPORT TARGET PORT GROUPS header, seconds (0 = unspecified). */
    public int implicitTransitionTimeSeconds() { return implicitTransitionTimeSeconds; }

    public void implicitTransitionTimeSeconds(int s) { this.implicitTransitionTimeSeconds = Math.max(0, Math.min(255, s)); }
}
