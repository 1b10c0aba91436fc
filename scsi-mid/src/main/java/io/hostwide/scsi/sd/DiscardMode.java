package io.hostwide.scsi.sd;

/** How the disk sends DISCARD (sd's {@code provisioning_mode}). */
public enum DiscardMode {
    /** UNMAP when VPD B2h reports LBPU, else WRITE SAME(16) with UNMAP when it reports LBPWS, else not supported. */
    AUTO,
    /** UNMAP whenever the LUN is thin-provisioned (READ CAPACITY(16) LBPME). */
    UNMAP,
    /** WRITE SAME(16) with the UNMAP bit whenever the LUN is thin-provisioned. */
    WRITE_SAME_16,
    /** DISCARD is refused with NOTSUPP. */
    DISABLED
}
