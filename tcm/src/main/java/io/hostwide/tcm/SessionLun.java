package io.hostwide.tcm;

import io.hostwide.tcm.model.Device;
import io.hostwide.tcm.model.Lun;

/**
 * One logical unit as one I_T nexus sees it (LIO's se_dev_entry, per session): the LUN number the initiator uses,
 * the exported {@link Lun}, whether the mapping is read-only, and this nexus's unit attention queue. PR
 * registration and prevent-medium-removal state are per I_T nexus too and hang off this object.
 */
public final class SessionLun {
    private final Session session;
    private final int mappedLun;
    private final Lun lun;
    private final boolean readOnly;
    private final UnitAttentionQueue unitAttentions = new UnitAttentionQueue(this);
    private volatile boolean preventMediumRemoval;
    /** Slot for the persistent-reservation layer (registration of this I_T nexus); null when unregistered. */
    public volatile Object reservationState;

    SessionLun(Session session, int mappedLun, Lun lun, boolean readOnly) {
        this.session = session;
        this.mappedLun = mappedLun;
        this.lun = lun;
        this.readOnly = readOnly;
    }

    public Session session() { return session; }

    public int mappedLun() { return mappedLun; }

    public Lun lun() { return lun; }

    public Device device() { return lun.device(); }

    /** A read-only ACL mapping (LIO lun_access_ro): writes fail with DATA PROTECT / WRITE PROTECTED. */
    public boolean readOnly() { return readOnly; }

    public UnitAttentionQueue unitAttentions() { return unitAttentions; }

    /** PREVENT ALLOW MEDIUM REMOVAL state of this I_T nexus (SPC-4 §6.13 / SBC-4 §5.11). */
    public boolean preventMediumRemoval() { return preventMediumRemoval; }

    public void preventMediumRemoval(boolean prevent) { this.preventMediumRemoval = prevent; }
}
