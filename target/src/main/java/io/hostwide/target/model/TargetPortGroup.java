package io.hostwide.target.model;

/**
 * An ALUA target port group (SPC-4 §5.16.2): the unit whose asymmetric access state applies to its member
 * LUN exports. This is the identity only (its ID appears in the VPD 83h target port group designator); access
 * states, transitions and REPORT/SET TARGET PORT GROUPS belong to the ALUA layer, which swaps a LUN's group
 * reference in one step ({@link Lun#aluaGroup(TargetPortGroup)}).
 */
public class TargetPortGroup {
    private final int id;
    private final String name;

    public TargetPortGroup(int id, String name) {
        if (id < 0 || id > 0xFFFF) {
            throw new IllegalArgumentException("target port group id out of range: " + id);
        }
        this.id = id;
        this.name = name;
    }

    public int id() { return id; }

    public String name() { return name; }

    @Override
    public String toString() { return "TargetPortGroup[" + id + " " + name + "]"; }
}
