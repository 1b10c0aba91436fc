package io.hostwide.iscsi.pdu;

import io.hostwide.iscsi.spec.RejectReason;
import java.nio.ByteBuffer;

/**
 * A malformed PDU, as a value: what the connection must answer and whether it must close.
 *
 * @param reason the Reject reason to send (RFC 7143 §11.17.1), or null when no Reject can be sent (the header is
 *     untrustworthy and the connection just closes)
 * @param dropConnection true when the framing can no longer be trusted and the connection must close (RFC 7143 §7.8
 *     for header digest errors; oversized segments)
 * @param rejectedHeader a copy of the offending 48-byte BHS, for the Reject data segment (RFC 7143 §11.17.3)
 * @param initiatorTaskTag the ITT of the offending PDU, for logs and for failing the command it belonged to
 * @param detail a short description for logs; never contains data-segment text (which may hold secrets)
 */
public record DecodeError(
        RejectReason reason, boolean dropConnection, ByteBuffer rejectedHeader, int initiatorTaskTag, String detail)
        implements DecodeResult {

    public static DecodeError reject(RejectReason reason, ByteBuffer header, int itt, String detail) {
        return new DecodeError(reason, false, header, itt, detail);
    }

    public static DecodeError rejectAndDrop(RejectReason reason, ByteBuffer header, int itt, String detail) {
        return new DecodeError(reason, true, header, itt, detail);
    }

    public static DecodeError drop(String detail) {
        return new DecodeError(null, true, null, 0, detail);
    }
}
