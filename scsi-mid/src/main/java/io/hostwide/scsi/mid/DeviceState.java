package io.hostwide.scsi.mid;

/** {@code enum scsi_device_state}, the subset the midlayer acts on (digest §4.4, §4.8). */
public enum DeviceState {
    CREATED,
    RUNNING,
    /** Dispatch refused with RESOURCE until unblocked (transport recovery). */
    BLOCK,
    /** Taken offline by error handling: commands fail with DID_NO_CONNECT. */
    OFFLINE,
    DEL
}
