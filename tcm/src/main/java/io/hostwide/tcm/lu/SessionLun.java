package io.hostwide.tcm.lu;

/**
 * One logical unit as one I_T nexus sees it (LIO's se_dev_entry, per session): the LUN number the initiator uses,
 * the exported {@link Lun}, whether the mapping is read-only, and this nexus's unit attention queue. The
 * prevent-medium-removal state is per I_T nexus too and hangs off this object.
 *
 * <p>It is per-LU state (SAM-5 §5.14 keeps unit attentions per I_T_L nexus), so it knows its nexus only as an
 * {@link ItNexus}; a newly queued unit attention goes to the {@code relay} its session gave it.
 */
public final class SessionLun {
    private final ItNexus session;
    private final int mappedLun;
    private final Lun lun;
    private final boolean readOnly;
    private final UnitAttentionQueue unitAttentions = new UnitAttentionQueue(this);
    private final UnitAttentionListener relay;
    private volatile boolean preventMediumRemoval;
    /** Commands of this I_T_L nexus: per-session metrics, and Ceph's per-LUN-per-client ones. */
    private final DeviceStats stats = new DeviceStats();

    /** @param relay told of every unit attention newly queued here (the session's listener, if any) */
    public SessionLun(ItNexus session, int mappedLun, Lun lun, boolean readOnly, UnitAttentionListener relay) {
        this.session = session;
        this.mappedLun = mappedLun;
        this.lun = lun;
        this.readOnly = readOnly;
        this.relay = relay;
    }

    public ItNexus session() { return session; }

    public int mappedLun() { return mappedLun; }

    public Lun lun() { return lun; }

    /** Commands this I_T nexus sent to this LUN. */
    public DeviceStats stats() { return stats; }

    public Device device() { return lun.device(); }

    /** A read-only ACL mapping (LIO lun_access_ro): writes fail with DATA PROTECT / WRITE PROTECTED. */
    public boolean readOnly() { return readOnly; }

    public UnitAttentionQueue unitAttentions() { return unitAttentions; }

    /** PREVENT ALLOW MEDIUM REMOVAL state of this I_T nexus (SPC-4 §6.13 / SBC-4 §5.11). */
    public boolean preventMediumRemoval() { return preventMediumRemoval; }

    public void preventMediumRemoval(boolean prevent) { this.preventMediumRemoval = prevent; }

    void unitAttentionQueued(int ascAscq) { relay.queued(this, ascAscq); }
}
