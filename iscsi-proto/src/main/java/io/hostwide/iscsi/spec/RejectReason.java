package io.hostwide.iscsi.spec;

/** Reject reason codes, RFC 7143 §11.17.1. */
public enum RejectReason {
    DATA_DIGEST_ERROR(0x02),
    SNACK_REJECT(0x03),
    PROTOCOL_ERROR(0x04),
    COMMAND_NOT_SUPPORTED(0x05),
    IMMEDIATE_COMMAND_REJECT(0x06),
    TASK_IN_PROGRESS(0x07),
    INVALID_DATA_ACK(0x08),
    INVALID_PDU_FIELD(0x09),
    LONG_OPERATION_REJECT(0x0a),
    DEPRECATED_NEGOTIATION_RESET(0x0b),
    WAITING_FOR_LOGOUT(0x0c);

    public final int code;

    RejectReason(int code) {
        this.code = code;
    }

    /** The reason for a wire code, or null for the reserved codes. */
    public static RejectReason of(int code) {
        for (RejectReason r : values()) {
            if (r.code == code) {
                return r;
            }
        }
        return null;
    }
}
