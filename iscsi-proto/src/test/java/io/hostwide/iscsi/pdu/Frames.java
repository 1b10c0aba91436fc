package io.hostwide.iscsi.pdu;

import java.nio.ByteBuffer;

/** Test helper: encode a PDU into a fresh buffer, and decode a frame with the decoder for its direction. */
final class Frames {
    private Frames() {}

    static ByteBuffer encode(Pdu pdu, boolean hd, boolean dd) {
        PduEncoder enc = new PduEncoder(hd, dd);
        ByteBuffer out = ByteBuffer.allocate(enc.encodedLength(pdu));
        int n = enc.encode(pdu, out);
        if (n != out.capacity()) {
            throw new AssertionError("encoded " + n + " of " + out.capacity());
        }
        return out.flip();
    }

    static PduDecoder decoderFor(Pdu pdu, boolean hd, boolean dd) {
        return pdu.opcode().fromInitiator() ? PduDecoder.forTarget(hd, dd, 1 << 20)
                : PduDecoder.forInitiator(hd, dd, 1 << 20);
    }

    static DecodeResult decode(PduDecoder d, ByteBuffer frame) {
        int rem = d.remainder(frame, 0);
        if (rem >= 0 && frame.remaining() != 48 + rem) {
            throw new AssertionError("remainder " + rem + " but frame has " + frame.remaining());
        }
        return d.decode(frame, 0);
    }
}
