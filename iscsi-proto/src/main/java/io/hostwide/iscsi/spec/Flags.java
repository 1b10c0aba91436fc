package io.hostwide.iscsi.spec;

/** Bits of BHS byte 1 (and the task attribute field) per opcode. RFC 7143 §11. */
public final class Flags {
    private Flags() {}

    public static final int FINAL = 0x80;

    // SCSI Command, RFC 7143 §11.3.1-11.3.3.
    public static final int SCSI_COMMAND_READ = 0x40;
    public static final int SCSI_COMMAND_WRITE = 0x20;
    public static final int SCSI_COMMAND_ATTR_MASK = 0x07;

    // SCSI Response, RFC 7143 §11.4.5.
    public static final int SCSI_RESPONSE_BIDI_OVERFLOW = 0x10; // o
    public static final int SCSI_RESPONSE_BIDI_UNDERFLOW = 0x08; // u
    public static final int SCSI_RESPONSE_OVERFLOW = 0x04; // O
    public static final int SCSI_RESPONSE_UNDERFLOW = 0x02; // U

    // SCSI Data-In, RFC 7143 §11.7.
    public static final int DATA_IN_ACKNOWLEDGE = 0x40; // A
    public static final int DATA_IN_OVERFLOW = 0x04; // O
    public static final int DATA_IN_UNDERFLOW = 0x02; // U
    public static final int DATA_IN_STATUS = 0x01; // S

    // Login Request/Response, RFC 7143 §11.12.
    public static final int LOGIN_TRANSIT = 0x80; // T
    public static final int LOGIN_CONTINUE = 0x40; // C
    public static final int LOGIN_CSG_MASK = 0x0c;
    public static final int LOGIN_CSG_SHIFT = 2;
    public static final int LOGIN_NSG_MASK = 0x03;

    // Text Request/Response, RFC 7143 §11.10.
    public static final int TEXT_CONTINUE = 0x40; // C
}
