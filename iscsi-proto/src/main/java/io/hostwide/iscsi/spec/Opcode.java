package io.hostwide.iscsi.spec;

/**
 * iSCSI opcodes, byte 0 bits 0-5 of the BHS. RFC 7143 §11.2.1.2.
 * Initiator opcodes are 0x00-0x1f, target opcodes 0x20-0x3f.
 */
public enum Opcode {
    NOP_OUT(0x00),
    SCSI_COMMAND(0x01),
    TASK_MANAGEMENT_REQUEST(0x02),
    LOGIN_REQUEST(0x03),
    TEXT_REQUEST(0x04),
    SCSI_DATA_OUT(0x05),
    LOGOUT_REQUEST(0x06),
    SNACK_REQUEST(0x10),
    NOP_IN(0x20),
    SCSI_RESPONSE(0x21),
    TASK_MANAGEMENT_RESPONSE(0x22),
    LOGIN_RESPONSE(0x23),
    TEXT_RESPONSE(0x24),
    SCSI_DATA_IN(0x25),
    LOGOUT_RESPONSE(0x26),
    R2T(0x31),
    ASYNC_MESSAGE(0x32),
    REJECT(0x3f);

    /** The 6-bit code. */
    public final int code;

    private static final Opcode[] BY_CODE = new Opcode[64];

    static {
        for (Opcode o : values()) {
            BY_CODE[o.code] = o;
        }
    }

    Opcode(int code) {
        this.code = code;
    }

    /** The opcode for a 6-bit code, or null when RFC 7143 defines none (vendor-specific and reserved codes). */
    public static Opcode of(int code) {
        return BY_CODE[code & 0x3f];
    }

    /** True for opcodes an initiator sends (0x00-0x1f). RFC 7143 §11.2.1.2. */
    public boolean fromInitiator() {
        return code < 0x20;
    }
}
