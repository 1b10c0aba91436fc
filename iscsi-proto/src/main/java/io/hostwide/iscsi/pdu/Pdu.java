package io.hostwide.iscsi.pdu;

import io.hostwide.iscsi.spec.Opcode;
import java.nio.ByteBuffer;

/**
 * One iSCSI PDU of RFC 7143 §11, immutable. Decoded PDUs' data segments are read-only views of the receive buffer:
 * valid until the connection reuses that buffer, so a consumer that keeps data longer copies it.
 *
 * <p>Sequence numbers and tags are unsigned 32-bit values carried in {@code int}s (RFC 7143 §4.2.2.1 serial
 * arithmetic); the LUN field is the raw 8-byte SAM LUN.
 */
public sealed interface Pdu extends DecodeResult
        permits NopOut, NopIn, ScsiCommand, ScsiResponse, TaskManagementRequest, TaskManagementResponse,
                LoginRequest, LoginResponse, TextRequest, TextResponse, DataOut, DataIn, LogoutRequest,
                LogoutResponse, SnackRequest, R2t, AsyncMessage, Reject {

    ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();

    Opcode opcode();

    int initiatorTaskTag();

    /** The data segment without padding; empty, never null. */
    default ByteBuffer data() {
        return EMPTY;
    }

    /** Writes the 48-byte BHS at absolute index {@code at}, DataSegmentLength from {@link #data()}. */
    void writeBhs(ByteBuffer out, int at);

    /** Normalises a nullable data argument to a read-only view. */
    static ByteBuffer readOnly(ByteBuffer data) {
        if (data == null || !data.hasRemaining()) {
            return EMPTY;
        }
        return data.isReadOnly() ? data : data.asReadOnlyBuffer();
    }
}
