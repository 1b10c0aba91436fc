package io.hostwide.iscsi.spec;

/**
 * The Basic Header Segment: 48 bytes at the start of every PDU. RFC 7143 §11.2.1.
 *
 * <pre>
 * Byte/     0       |       1       |       2       |       3       |
 *     +---------------+---------------+---------------+---------------+
 *    0|.|I| Opcode    |F|  Opcode-specific fields                     |
 *     +---------------+---------------+---------------+---------------+
 *    4|TotalAHSLength | DataSegmentLength                             |
 *     +---------------+---------------+---------------+---------------+
 *    8| LUN or Opcode-specific fields                                 |
 *   12|                                                               |
 *     +---------------+---------------+---------------+---------------+
 *   16| Initiator Task Tag                                            |
 *     +---------------+---------------+---------------+---------------+
 *   20| Opcode-specific fields (to byte 47)                           |
 *     +---------------+---------------+---------------+---------------+
 * </pre>
 *
 * Byte 0 carries the I (immediate) bit and the opcode; byte 1 bit 7 is the F (final) bit. TotalAHSLength counts
 * 4-byte words; DataSegmentLength counts bytes, excluding padding (RFC 7143 §11.2.1.5). All multi-byte fields are
 * big-endian. The per-opcode offsets below name the fields in bytes 20-47 (and 8-15 where they are not a LUN); every
 * PDU class reads and writes through these constants only.
 */
public final class Bhs {
    private Bhs() {}

    public static final int LENGTH = 48;

    // Common fields, RFC 7143 §11.2.1.
    public static final int OPCODE = 0;
    public static final int FLAGS = 1;
    public static final int TOTAL_AHS_LENGTH = 4;
    public static final int DATA_SEGMENT_LENGTH = 5; // 3 bytes
    public static final int LUN = 8; // 8 bytes
    public static final int INITIATOR_TASK_TAG = 16;

    public static final int IMMEDIATE_BIT = 0x40;
    public static final int OPCODE_MASK = 0x3f;
    public static final int FINAL_BIT = 0x80;
    /** The largest DataSegmentLength the 24-bit field holds. */
    public static final int MAX_DATA_SEGMENT_LENGTH = 0xff_ffff;

    /** Fields shared by most target PDUs (SCSI Response, Data-In, R2T, NOP-In, ...): RFC 7143 §11.4, §11.7. */
    public static final int TARGET_TRANSFER_TAG = 20;
    public static final int STAT_SN = 24;
    public static final int EXP_CMD_SN = 28;
    public static final int MAX_CMD_SN = 32;

    /** Fields shared by initiator PDUs (SCSI Command, NOP-Out, Text, Login, Logout, TMF): CmdSN, ExpStatSN. */
    public static final int CMD_SN = 24;
    public static final int EXP_STAT_SN = 28;

    /** SCSI Command, RFC 7143 §11.3. Byte 1: F R W . . ATTR. */
    public static final class ScsiCommand {
        private ScsiCommand() {}
        public static final int EXPECTED_DATA_TRANSFER_LENGTH = 20;
        public static final int CDB = 32; // 16 bytes
        public static final int CDB_LENGTH = 16;
    }

    /** SCSI Response, RFC 7143 §11.4. Byte 1: 1 . . o u O U .; byte 2 Response; byte 3 Status. */
    public static final class ScsiResponse {
        private ScsiResponse() {}
        public static final int RESPONSE = 2;
        public static final int STATUS = 3;
        public static final int SNACK_TAG = 20;
        public static final int EXP_DATA_SN = 36;
        public static final int BIDIRECTIONAL_READ_RESIDUAL_COUNT = 40;
        public static final int RESIDUAL_COUNT = 44;
    }

    /** Task Management Function Request, RFC 7143 §11.5. */
    public static final class TaskManagementRequest {
        private TaskManagementRequest() {}
        public static final int FUNCTION = 1; // low 7 bits, bit 7 is always 1
        public static final int REFERENCED_TASK_TAG = 20;
        public static final int REF_CMD_SN = 32;
        public static final int EXP_DATA_SN = 36;
    }

    /** Task Management Function Response, RFC 7143 §11.6. */
    public static final class TaskManagementResponse {
        private TaskManagementResponse() {}
        public static final int RESPONSE = 2;
    }

    /** SCSI Data-Out and Data-In, RFC 7143 §11.7. */
    public static final class Data {
        private Data() {}
        public static final int STATUS = 3; // Data-In only, valid when S=1
        public static final int DATA_SN = 36;
        public static final int BUFFER_OFFSET = 40;
        public static final int RESIDUAL_COUNT = 44; // Data-In only
    }

    /** Ready To Transfer, RFC 7143 §11.8. */
    public static final class R2t {
        private R2t() {}
        public static final int R2T_SN = 36;
        public static final int BUFFER_OFFSET = 40;
        public static final int DESIRED_DATA_TRANSFER_LENGTH = 44;
    }

    /** Asynchronous Message, RFC 7143 §11.9. */
    public static final class AsyncMessage {
        private AsyncMessage() {}
        public static final int ASYNC_EVENT = 36;
        public static final int ASYNC_VCODE = 37;
        public static final int PARAMETER1 = 38;
        public static final int PARAMETER2 = 40;
        public static final int PARAMETER3 = 42;
    }

    /** Text Request and Response, RFC 7143 §11.10, §11.11. Byte 1: F C. */
    public static final class Text {
        private Text() {}
    }

    /** Login Request and Response, RFC 7143 §11.12, §11.13. Byte 1: T C . . CSG NSG. */
    public static final class Login {
        private Login() {}
        public static final int VERSION_MAX = 2;
        public static final int VERSION_MIN = 3; // request; in the response this byte is Version-active
        public static final int VERSION_ACTIVE = 3;
        public static final int ISID = 8; // 6 bytes
        public static final int TSIH = 14;
        public static final int CID = 20; // request, 2 bytes
        public static final int STATUS_CLASS = 36; // response
        public static final int STATUS_DETAIL = 37;
    }

    /** Logout Request and Response, RFC 7143 §11.14, §11.15. */
    public static final class Logout {
        private Logout() {}
        public static final int REASON_CODE = 1; // low 7 bits
        public static final int CID = 20;
        public static final int RESPONSE = 2;
        public static final int TIME2WAIT = 40;
        public static final int TIME2RETAIN = 42;
    }

    /** SNACK Request, RFC 7143 §11.16. Byte 1: 1 . . . Type. */
    public static final class Snack {
        private Snack() {}
        public static final int TYPE = 1; // low 4 bits
        public static final int BEG_RUN = 40;
        public static final int RUN_LENGTH = 44;
    }

    /** Reject, RFC 7143 §11.17. The data segment carries the rejected PDU's 48-byte header. */
    public static final class Reject {
        private Reject() {}
        public static final int REASON = 2;
        public static final int DATA_SN_OR_R2T_SN = 36;
    }

    /** NOP-Out and NOP-In, RFC 7143 §11.18, §11.19. */
    public static final class Nop {
        private Nop() {}
    }
}
