package io.hostwide.tcm.port;

import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.tcm.lu.Lun;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Access control for one initiator (by SCSI name) on one target port (LIO's se_node_acl): which LUNs it sees,
 * under which numbers, and which of them read-only. Changes go through the port so that sessions are told.
 */
public final class NodeAcl {
    private final TargetPort port;
    private final String initiatorName;
    private final Map<Integer, MappedLun> mapped = new TreeMap<>();

    NodeAcl(TargetPort port, String initiatorName) {
        this.port = port;
        this.initiatorName = initiatorName;
    }

    public String initiatorName() { return initiatorName; }

    public TargetPort port() { return port; }

    /** Maps the port's LUN {@code portLun} as {@code mappedLun} for this initiator. */
    public NodeAcl map(int mappedLun, int portLun, boolean readOnly) {
        Lun l = port.lun(portLun);
        if (l == null) {
            throw new IllegalArgumentException("no LUN " + portLun + " on " + port.portName());
        }
        if (mappedLun < 0 || mappedLun > LunAddress.MAX_FLAT_LUN) {
            throw new IllegalArgumentException("mapped LUN out of range: " + mappedLun);
        }
        synchronized (this) {
            mapped.put(mappedLun, new MappedLun(mappedLun, l, readOnly));
        }
        port.aclChanged(this);
        return this;
    }

    public NodeAcl unmap(int mappedLun) {
        boolean changed;
        synchronized (this) {
            changed = mapped.remove(mappedLun) != null;
        }
        if (changed) {
            port.aclChanged(this);
        }
        return this;
    }

    public synchronized List<MappedLun> mappedLuns() { return new ArrayList<>(mapped.values()); }

    synchronized void dropLun(Lun l) { mapped.values().removeIf(m -> m.lun() == l); }

    @Override
    public String toString() { return "NodeAcl[" + initiatorName + "]"; }
}
