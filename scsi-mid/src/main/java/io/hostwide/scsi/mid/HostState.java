package io.hostwide.scsi.mid;

/** {@code enum scsi_host_state}, the subset used here. */
public enum HostState {
    RUNNING,
    /** Error handling is active: no new dispatch; completions re-check the EH wake-up condition. */
    RECOVERY,
    DEL
}
