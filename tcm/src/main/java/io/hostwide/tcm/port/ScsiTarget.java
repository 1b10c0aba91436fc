package io.hostwide.tcm.port;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A SCSI target device named in SCSI name string form (iSCSI: an IQN, RFC 7143 §4.2.7). It owns target ports
 * (iSCSI target portal groups; LIO's se_portal_group) and hands out relative target port identifiers, unique
 * within the target (SPC-4 §3.1.120).
 */
public final class ScsiTarget {
    private final String name;
    private final List<TargetPort> ports = new CopyOnWriteArrayList<>();
    private int nextRelativePortId = 1;

    public ScsiTarget(String name) {
        if (name == null || name.isEmpty() || name.length() > 223) {
            throw new IllegalArgumentException("target name must be 1..223 bytes (RFC 7143 §4.2.7.1): " + name);
        }
        this.name = name;
    }

    public String name() { return name; }

    /**
     * Adds a target port with the given tag (iSCSI TPGT, 1..65535).
     *
     * @param protocolIdentifier SPC-4 Table 362 value of the fabric that serves this port (5 = iSCSI)
     */
    public synchronized TargetPort addPort(int tag, int protocolIdentifier) {
        for (TargetPort p : ports) {
            if (p.tag() == tag) {
                throw new IllegalArgumentException("port tag " + tag + " already exists on " + name);
            }
        }
        if (tag < 0 || tag > 0xFFFF) {
            throw new IllegalArgumentException("port tag out of range: " + tag);
        }
        TargetPort p = new TargetPort(this, tag, nextRelativePortId++, protocolIdentifier);
        ports.add(p);
        return p;
    }

    /**
     * Advances the next relative target port identifier to at least {@code first}: a gateway sharing an LU with
     * others numbers its ports apart from theirs, since every port of one SCSI target device has its own
     * identifier (SPC-4 §3.1.120), whichever process serves it.
     */
    public synchronized void firstRelativePortId(int first) {
        if (first < 1 || first > 0xFFFF) {
            throw new IllegalArgumentException("relative target port identifier out of range: " + first);
        }
        nextRelativePortId = Math.max(nextRelativePortId, first);
    }

    public TargetPort port(int tag) {
        for (TargetPort p : ports) {
            if (p.tag() == tag) {
                return p;
            }
        }
        return null;
    }

    public List<TargetPort> ports() { return new ArrayList<>(ports); }

    @Override
    public String toString() { return "ScsiTarget[" + name + "]"; }
}
