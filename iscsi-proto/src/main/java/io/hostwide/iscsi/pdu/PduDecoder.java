package io.hostwide.iscsi.pdu;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Codes;
import io.hostwide.iscsi.spec.Opcode;
import io.hostwide.iscsi.spec.RejectReason;
import java.nio.ByteBuffer;

/**
 * Stateless PDU decoding in two steps (RFC 7143 §11.2):
 * <ol>
 *   <li>{@link #remainder}: from the 48-byte BHS, how many more bytes make up this PDU (AHS, header digest, padded
 *       data segment, data digest) — or {@link #FRAME_TOO_LARGE};</li>
 *   <li>{@link #decode}: the whole frame to a typed {@link Pdu} or a {@link DecodeError} value.</li>
 * </ol>
 * Nothing here throws on any input. One instance per connection (it owns a {@link Digest}); a new one replaces it
 * when login settles digests and MaxRecvDataSegmentLength.
 */
public final class PduDecoder {
    /** {@link #remainder} result: DataSegmentLength exceeds our MaxRecvDataSegmentLength (RFC 7143 §13.12). */
    public static final int FRAME_TOO_LARGE = -1;

    private final boolean targetSide;
    private final boolean headerDigest;
    private final boolean dataDigest;
    private final int maxRecvDataSegmentLength;
    private final Digest digest = new Digest();
    private ByteBuffer viewOf;
    private ByteBuffer view;

    private PduDecoder(boolean targetSide, boolean headerDigest, boolean dataDigest, int maxRecvDataSegmentLength) {
        this.targetSide = targetSide;
        this.headerDigest = headerDigest;
        this.dataDigest = dataDigest;
        this.maxRecvDataSegmentLength = maxRecvDataSegmentLength;
    }

    /** A decoder for a target: accepts initiator opcodes only. */
    public static PduDecoder forTarget(boolean headerDigest, boolean dataDigest, int maxRecvDataSegmentLength) {
        return new PduDecoder(true, headerDigest, dataDigest, maxRecvDataSegmentLength);
    }

    /** A decoder for an initiator: accepts target opcodes only. */
    public static PduDecoder forInitiator(boolean headerDigest, boolean dataDigest, int maxRecvDataSegmentLength) {
        return new PduDecoder(false, headerDigest, dataDigest, maxRecvDataSegmentLength);
    }

    /** Bytes of this PDU after the BHS at {@code at}, or {@link #FRAME_TOO_LARGE}. Reads bytes 4-7 only. */
    public int remainder(ByteBuffer b, int at) {
        int ahs = Wire.u8(b, at + Bhs.TOTAL_AHS_LENGTH) * 4;
        int dsl = Wire.u24(b, at + Bhs.DATA_SEGMENT_LENGTH);
        if (dsl > maxRecvDataSegmentLength) {
            return FRAME_TOO_LARGE;
        }
        int n = ahs + (headerDigest ? Codes.DIGEST_LENGTH : 0);
        if (dsl > 0) {
            n += Wire.padded(dsl) + (dataDigest ? Codes.DIGEST_LENGTH : 0);
        }
        return n;
    }

    /**
     * The error for a frame {@link #remainder} refused: a Reject (Protocol Error) and then a connection drop, since
     * buffering or skipping an over-long segment of an unverified header is unsafe (RFC 7143 §13.12).
     */
    public DecodeError oversize(ByteBuffer b, int at) {
        return DecodeError.rejectAndDrop(RejectReason.PROTOCOL_ERROR, copyHeader(b, at),
                b.getInt(at + Bhs.INITIATOR_TASK_TAG), "DataSegmentLength exceeds MaxRecvDataSegmentLength");
    }

    /**
     * The hot path: when the complete frame at {@code at} is a SCSI Command without AHS (and a usable ITT) or a
     * SCSI Data-Out whose digests check out, fills {@code view} and returns true; otherwise returns false and the
     * caller uses {@link #decode}, which yields the record or the DecodeError. Allocates nothing.
     */
    public boolean hot(ByteBuffer b, int at, HotPdu view) {
        int code = b.get(at) & Bhs.OPCODE_MASK;
        boolean command = code == Opcode.SCSI_COMMAND.code;
        if (!targetSide || !(command || code == Opcode.SCSI_DATA_OUT.code)) {
            return false;
        }
        int ahs = Wire.u8(b, at + Bhs.TOTAL_AHS_LENGTH);
        int dsl = Wire.u24(b, at + Bhs.DATA_SEGMENT_LENGTH);
        if (ahs != 0 || dsl > maxRecvDataSegmentLength
                || (command && HotPdu.reservedTag(b.getInt(at + Bhs.INITIATOR_TASK_TAG)))) {
            return false;
        }
        int headerEnd = at + Bhs.LENGTH;
        if (headerDigest) {
            if (digest.compute(b, at, Bhs.LENGTH) != Digest.get(b, headerEnd)) {
                return false;
            }
            headerEnd += Codes.DIGEST_LENGTH;
        }
        if (dataDigest && dsl > 0) {
            int padded = Wire.padded(dsl);
            if (digest.compute(b, headerEnd, padded) != Digest.get(b, headerEnd + padded)) {
                return false;
            }
        }
        view.wrap(b, at, headerEnd, dsl);
        return true;
    }

    /** Decodes the complete frame starting at absolute index {@code at}; the buffer holds 48 + remainder bytes. */
    public DecodeResult decode(ByteBuffer b, int at) {
        int ahs = Wire.u8(b, at + Bhs.TOTAL_AHS_LENGTH) * 4;
        int dsl = Wire.u24(b, at + Bhs.DATA_SEGMENT_LENGTH);
        int headerEnd = at + Bhs.LENGTH + ahs;
        if (headerDigest) {
            if (digest.compute(b, at, headerEnd - at) != Digest.get(b, headerEnd)) {
                // RFC 7143 §7.8: the length fields cannot be trusted, so the connection closes.
                return DecodeError.drop("header digest error");
            }
            headerEnd += Codes.DIGEST_LENGTH;
        }
        int itt = b.getInt(at + Bhs.INITIATOR_TASK_TAG);
        if (dsl > maxRecvDataSegmentLength) {
            return oversize(b, at);
        }
        if (dataDigest && dsl > 0) {
            int padded = Wire.padded(dsl);
            if (digest.compute(b, headerEnd, padded) != Digest.get(b, headerEnd + padded)) {
                // RFC 7143 §7.8: answer a Reject with Data-Digest-Error and discard the PDU.
                return DecodeError.reject(RejectReason.DATA_DIGEST_ERROR, copyHeader(b, at), itt, "data digest error");
            }
        }
        int code = b.get(at) & Bhs.OPCODE_MASK;
        Opcode op = Opcode.of(code);
        if (op == null || op.fromInitiator() != targetSide) {
            return DecodeError.reject(RejectReason.COMMAND_NOT_SUPPORTED, copyHeader(b, at), itt,
                    "opcode 0x" + Integer.toHexString(code) + " not accepted here");
        }
        if (b != viewOf) { // one read-only view per receive buffer, not per PDU
            viewOf = b;
            view = b.asReadOnlyBuffer();
        }
        ByteBuffer ro = view.limit(b.limit()); // the receive buffer's limit moves with every read
        ByteBuffer data = dsl == 0 ? Pdu.EMPTY : ro.slice(headerEnd, dsl);
        return switch (op) {
            case NOP_OUT -> NopOut.read(b, at, data);
            case SCSI_COMMAND -> ScsiCommandReader.read(b, ro, at, ahs, data, this);
            case TASK_MANAGEMENT_REQUEST -> noSegments(b, at, ahs, dsl) ? TaskManagementRequest.read(b, at)
                    : mustBeZero(b, at);
            case LOGIN_REQUEST -> LoginRequest.read(b, at, data);
            case TEXT_REQUEST -> textRequest(b, at, data);
            case SCSI_DATA_OUT -> DataOut.read(b, at, data);
            case LOGOUT_REQUEST -> noSegments(b, at, ahs, dsl) ? LogoutRequest.read(b, at) : mustBeZero(b, at);
            case SNACK_REQUEST -> noSegments(b, at, ahs, dsl) ? SnackRequest.read(b, at) : mustBeZero(b, at);
            case NOP_IN -> NopIn.read(b, at, data);
            case SCSI_RESPONSE -> ScsiResponse.read(b, at, data);
            case TASK_MANAGEMENT_RESPONSE -> TaskManagementResponse.read(b, at);
            case LOGIN_RESPONSE -> LoginResponse.read(b, at, data);
            case TEXT_RESPONSE -> TextResponse.read(b, at, data);
            case SCSI_DATA_IN -> DataIn.read(b, at, data);
            case LOGOUT_RESPONSE -> LogoutResponse.read(b, at);
            case R2T -> noSegments(b, at, ahs, dsl) ? R2t.read(b, at) : mustBeZero(b, at);
            case ASYNC_MESSAGE -> AsyncMessage.read(b, at, data);
            case REJECT -> Reject.read(b, at, data);
        };
    }

    private static boolean noSegments(ByteBuffer b, int at, int ahs, int dsl) {
        return ahs == 0 && dsl == 0;
    }

    // RFC 7143 §11.5, §11.8, §11.14, §11.16: TotalAHSLength and DataSegmentLength "MUST be 0 for this PDU".
    private static DecodeError mustBeZero(ByteBuffer b, int at) {
        return DecodeError.reject(RejectReason.PROTOCOL_ERROR, copyHeader(b, at),
                b.getInt(at + Bhs.INITIATOR_TASK_TAG), "AHS or data segment on a PDU that allows none");
    }

    private static DecodeResult textRequest(ByteBuffer b, int at, ByteBuffer data) {
        TextRequest t = TextRequest.read(b, at, data);
        if (t.fin() && t.cont()) { // RFC 7143 §11.10.2: C=1 requires F=0
            return DecodeError.reject(RejectReason.PROTOCOL_ERROR, copyHeader(b, at), t.initiatorTaskTag(),
                    "Text Request with both F and C set");
        }
        return t;
    }

    /** A private copy of the 48-byte BHS for a Reject data segment (RFC 7143 §11.17.3). */
    static ByteBuffer copyHeader(ByteBuffer b, int at) {
        ByteBuffer h = ByteBuffer.allocate(Bhs.LENGTH);
        h.put(0, b, at, Bhs.LENGTH);
        return h.asReadOnlyBuffer();
    }
}
