package io.hostwide.iscsi.pdu;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.iscsi.Hex;
import io.hostwide.iscsi.spec.RejectReason;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Malformed frames become DecodeError values with the RFC 7143 §11.17 reason or a §7.8 connection drop. */
class DecodeErrorTest {
    static final String NOP_OUT = "40800000 00000000 0000000000000000 11223344 ffffffff 00000001 00000002"
            + "00000000".repeat(4);
    static final String NOP = NOP_OUT.replace(" ", "");

    static DecodeError error(DecodeResult r) {
        assertThat(r).isInstanceOf(DecodeError.class);
        return (DecodeError) r;
    }

    @Test
    void unknownAndWrongDirectionOpcodesAreNotSupported() {
        for (String op : new String[] {"1c", "21", "3f", "07"}) {
            ByteBuffer f = Hex.buffer(op + NOP.substring(2));
            DecodeError e = error(PduDecoder.forTarget(false, false, 8192).decode(f, 0));
            assertThat(e.reason()).isEqualTo(RejectReason.COMMAND_NOT_SUPPORTED);
            assertThat(e.dropConnection()).isFalse();
            assertThat(Hex.of(e.rejectedHeader())).isEqualTo(Hex.of(f.duplicate().limit(48)));
        }
    }

    @Test
    void headerDigestErrorDropsTheConnection() {
        ByteBuffer f = Frames.encode(new NopOut(true, 0, 1, -1, 1, 1, null), true, false);
        f.put(20, (byte) 0x55);
        DecodeError e = error(PduDecoder.forTarget(true, false, 8192).decode(f, 0));
        assertThat(e.dropConnection()).isTrue();
        assertThat(e.reason()).isNull();
    }

    @Test
    void dataDigestErrorIsRejectedAndTheConnectionStays() {
        ByteBuffer f = Frames.encode(new NopOut(true, 0, 1, -1, 1, 1, ByteBuffer.wrap(new byte[] {9, 9, 9})),
                false, true);
        f.put(48, (byte) 8);
        DecodeError e = error(PduDecoder.forTarget(false, true, 8192).decode(f, 0));
        assertThat(e.reason()).isEqualTo(RejectReason.DATA_DIGEST_ERROR);
        assertThat(e.dropConnection()).isFalse();
        assertThat(e.initiatorTaskTag()).isEqualTo(1);
    }

    @Test
    void segmentBeyondMaxRecvDataSegmentLengthIsRefusedBeforeReading() {
        ByteBuffer f = Hex.buffer(NOP_OUT);
        f.put(5, (byte) 0).put(6, (byte) 0x20).put(7, (byte) 1); // 8193
        PduDecoder d = PduDecoder.forTarget(false, false, 8192);
        assertThat(d.remainder(f, 0)).isEqualTo(PduDecoder.FRAME_TOO_LARGE);
        DecodeError e = d.oversize(f, 0);
        assertThat(e.reason()).isEqualTo(RejectReason.PROTOCOL_ERROR);
        assertThat(e.dropConnection()).isTrue();
    }

    @Test
    void segmentsOnPdusThatAllowNoneAreProtocolErrors() {
        // TMF request with a 4-byte data segment (RFC 7143 §11.5: DataSegmentLength MUST be 0)
        ByteBuffer f = Hex.buffer("42810000 00000004" + NOP.substring(16) + "00000000");
        assertThat(error(PduDecoder.forTarget(false, false, 8192).decode(f, 0)).reason())
                .isEqualTo(RejectReason.PROTOCOL_ERROR);
        // Logout with an AHS word
        ByteBuffer g = Hex.buffer("46800000 01000000" + NOP.substring(16) + "00010100");
        assertThat(error(PduDecoder.forTarget(false, false, 8192).decode(g, 0)).reason())
                .isEqualTo(RejectReason.PROTOCOL_ERROR);
    }

    @Test
    void textRequestWithFinalAndContinueIsAProtocolError() {
        ByteBuffer f = Hex.buffer("04c00000" + NOP.substring(8));
        assertThat(error(PduDecoder.forTarget(false, false, 8192).decode(f, 0)).reason())
                .isEqualTo(RejectReason.PROTOCOL_ERROR);
    }

    @Test
    void scsiCommandWithReservedTagOrBadAhsIsRejected() {
        String cmd = "01c10000 00000000 0000000000000000 ffffffff 00000200 00000001 00000001"
                + "28000000 00000000 01000000 00000000";
        assertThat(error(PduDecoder.forTarget(false, false, 8192).decode(Hex.buffer(cmd), 0)).reason())
                .isEqualTo(RejectReason.INVALID_PDU_FIELD);
        String ahsTooLong = "01c10000 01000000 0000000000000000 00000007 00000200 00000001 00000001"
                + "28000000 00000000 01000000 00000000" + "00100100";
        assertThat(error(PduDecoder.forTarget(false, false, 8192).decode(Hex.buffer(ahsTooLong), 0)).reason())
                .isEqualTo(RejectReason.PROTOCOL_ERROR);
        String unknownAhs = "01c10000 02000000 0000000000000000 00000007 00000200 00000001 00000001"
                + "28000000 00000000 01000000 00000000" + "00050900 00000000";
        assertThat(error(PduDecoder.forTarget(false, false, 8192).decode(Hex.buffer(unknownAhs), 0)).reason())
                .isEqualTo(RejectReason.INVALID_PDU_FIELD);
    }

    @Test
    void encoderRefusesABufferTooSmall() {
        PduEncoder enc = new PduEncoder(false, false);
        ByteBuffer small = ByteBuffer.allocate(40);
        assertThat(enc.encode(new NopOut(true, 0, 1, -1, 1, 1, null), small)).isEqualTo(-1);
        assertThat(small.position()).isZero();
    }

    @Test
    void reusedReceiveBufferWithAMovingLimitDecodes() { // regression: the cached read-only view kept an old limit
        PduDecoder d = PduDecoder.forTarget(false, false, 8192);
        ByteBuffer recv = ByteBuffer.allocateDirect(4096);
        ByteBuffer small = Frames.encode(new NopOut(true, 0, 1, -1, 1, 1, null), false, false);
        recv.put(small).flip();
        assertThat(d.decode(recv, 0)).isInstanceOf(NopOut.class);
        recv.clear();
        ByteBuffer big = Frames.encode(new NopOut(true, 0, 2, -1, 1, 1, ByteBuffer.allocate(1000)), false, false);
        recv.put(big).flip();
        assertThat(((NopOut) d.decode(recv, 0)).data().remaining()).isEqualTo(1000);
    }
}
