package io.hostwide.tcm.port;

import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.Lun;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A SCSI target port (iSCSI: a target portal group, RFC 7143 §4.4.1; LIO: se_portal_group). It exports LUNs
 * (port LUN number → {@link Device}) and decides who may log in: per-initiator {@link NodeAcl}s, or, in demo
 * mode, any initiator, which then sees every LUN of the port under its own number.
 */
public final class TargetPort {
    /** Told when the LUNs a session sees may have changed; set by the core. */
    public interface Listener {
        /** @param acl the ACL that changed, or null when the port's LUN set changed */
        void lunMapChanged(TargetPort port, NodeAcl acl);
    }

    private final ScsiTarget target;
    private final int tag;
    private final int relativePortId;
    private final int protocolIdentifier;
    private final Map<Integer, Lun> luns = new TreeMap<>();
    private final Map<String, NodeAcl> acls = new ConcurrentHashMap<>();
    private volatile boolean demoMode;
    private volatile boolean demoModeWriteProtect;
    private volatile Listener listener;

    TargetPort(ScsiTarget target, int tag, int relativePortId, int protocolIdentifier) {
        this.target = target;
        this.tag = tag;
        this.relativePortId = relativePortId;
        this.protocolIdentifier = protocolIdentifier;
    }

    public ScsiTarget target() { return target; }

    /** iSCSI target portal group tag. */
    public int tag() { return tag; }

    /** SPC-4 relative target port identifier (1..65535), unique within the target. */
    public int relativePortId() { return relativePortId; }

    public int protocolIdentifier() { return protocolIdentifier; }

    /** SCSI target port name: for iSCSI "iqn...,t,0x" + 4-hex-digit TPGT (RFC 7143 §4.2.7.1, SPC-4 §7.8.6.11). */
    public String portName() { return String.format("%s,t,0x%04x", target.name(), tag); }

    public void listener(Listener l) { this.listener = l; }

    /** Exports {@code device} as LUN {@code lunNumber} of this port. */
    public Lun addLun(int lunNumber, Device device) {
        if (lunNumber < 0 || lunNumber > LunAddress.MAX_FLAT_LUN) {
            throw new IllegalArgumentException("LUN out of range: " + lunNumber);
        }
        Lun l;
        synchronized (this) {
            if (luns.containsKey(lunNumber)) {
                throw new IllegalArgumentException("LUN " + lunNumber + " already exists on " + portName());
            }
            l = new Lun(portName(), lunNumber, device);
            luns.put(lunNumber, l);
        }
        notifyChanged(null);
        return l;
    }

    public void removeLun(int lunNumber) {
        Lun l;
        synchronized (this) {
            l = luns.remove(lunNumber);
        }
        if (l != null) {
            for (NodeAcl a : acls.values()) {
                a.dropLun(l);
            }
            notifyChanged(null);
        }
    }

    public synchronized Lun lun(int lunNumber) { return luns.get(lunNumber); }

    public synchronized List<Lun> luns() { return new ArrayList<>(luns.values()); }

    /** Creates (or returns) the ACL of an initiator. */
    public NodeAcl addAcl(String initiatorName) {
        return acls.computeIfAbsent(initiatorName, n -> new NodeAcl(this, n));
    }

    public NodeAcl acl(String initiatorName) { return acls.get(initiatorName); }

    public void removeAcl(String initiatorName) {
        NodeAcl a = acls.remove(initiatorName);
        if (a != null) {
            notifyChanged(a);
        }
    }

    /** Demo mode (LIO generate_node_acls): initiators without an ACL may log in and see every LUN. */
    public TargetPort demoMode(boolean on, boolean writeProtect) {
        this.demoMode = on;
        this.demoModeWriteProtect = writeProtect;
        notifyChanged(null);
        return this;
    }

    public boolean demoMode() { return demoMode; }

    /** Whether an initiator may open a session on this port (ACL present, or demo mode). */
    public boolean admits(String initiatorName) { return acls.containsKey(initiatorName) || demoMode; }

    /** The mappings a demo-mode session sees: every LUN under its port number. */
    public synchronized List<MappedLun> demoModeMappings() {
        List<MappedLun> r = new ArrayList<>(luns.size());
        for (Lun l : luns.values()) {
            r.add(new MappedLun(l.lunNumber(), l, demoModeWriteProtect));
        }
        return r;
    }

    void aclChanged(NodeAcl acl) { notifyChanged(acl); }

    private void notifyChanged(NodeAcl acl) {
        Listener l = listener;
        if (l != null) {
            l.lunMapChanged(this, acl);
        }
    }

    @Override
    public String toString() { return "TargetPort[" + portName() + "]"; }
}
