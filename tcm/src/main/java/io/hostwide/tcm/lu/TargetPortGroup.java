package io.hostwide.tcm.lu;

/**
 * An ALUA target port group (SPC-4 §5.15.2): the unit whose asymmetric access state applies to its member
 * LUN exports. Its ID appears in the VPD 83h target port group designator; its state is an immutable
 * {@link AluaAccessState} swapped in one step. Transitions and their unit attentions are {@link AluaGroups}'s,
 * which also moves a LUN between groups in one step ({@link Lun#aluaGroup(TargetPortGroup)}); REPORT/SET TARGET
 * PORT GROUPS are the ALUA handlers' ({@code io.hostwide.tcm.alua}).
 */
public class TargetPortGroup {
    private final int id;
    private final String name;
    /** The group's access state: replaced as a whole, read by the ALUA gate without a lock. */
    private volatile AluaAccessState accessState = AluaAccessState.INITIAL;
    private volatile int implicitTransitionSeconds;
    private volatile long transitionDelayMillis;
    /** Relative target port identifiers of this group's ports in other gateway processes (none for local groups). */
    private volatile java.util.List<Integer> remotePorts = java.util.List.of();

    public TargetPortGroup(int id, String name) {
        if (id < 0 || id > 0xFFFF) {
            throw new IllegalArgumentException("target port group id out of range: " + id);
        }
        this.id = id;
        this.name = name;
    }

    public int id() { return id; }

    public String name() { return name; }

    /** One volatile read: the state record I/O checks against (SPC-4 §5.15.2.4). */
    public AluaAccessState accessState() { return accessState; }

    /** Publishes a new state in one step (the ALUA layer serialises writers and raises the unit attentions). */
    public void accessState(AluaAccessState s) {
        if (s == null) {
            throw new IllegalArgumentException("a target port group always has a state");
        }
        this.accessState = s;
    }

    /**
     * IMPLICIT TRANSITION TIME (SPC-4 §6.27, extended REPORT TARGET PORT GROUPS header), seconds, 0..255: how long
     * an initiator should allow an implicit transition of this group to take (LIO implicit_trans_secs).
     */
    public int implicitTransitionSeconds() { return implicitTransitionSeconds; }

    public void implicitTransitionSeconds(int s) {
        if (s < 0 || s > 255) {
            throw new IllegalArgumentException("implicit transition time " + s + " s is not 0..255");
        }
        this.implicitTransitionSeconds = s;
    }

    /**
     * How long a transition of this group stays in TRANSITIONING before the new state is published (LIO
     * trans_delay_msecs); 0 = immediate.
     */
    public long transitionDelayMillis() { return transitionDelayMillis; }

    public void transitionDelayMillis(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("transition delay " + ms + " ms is negative");
        }
        this.transitionDelayMillis = ms;
    }

    /**
     * The relative target port identifiers of this group's ports served by another gateway process exporting the
     * same LU (REPORT TARGET PORT GROUPS lists them with the local ones); empty for a group of this process.
     */
    public java.util.List<Integer> remotePorts() { return remotePorts; }

    public void remotePorts(java.util.List<Integer> ports) { this.remotePorts = java.util.List.copyOf(ports); }

    @Override
    public String toString() { return "TargetPortGroup[" + id + " " + name + "]"; }
}
