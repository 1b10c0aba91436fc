package io.hostwide.iscsi.pdu;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC32C header and data digests, RFC 7143 §13.1 (polynomial 0x1EDC6F41, RFC 3385). The 32-bit value goes on the wire
 * least significant byte first: RFC 3720 Appendix B.4 lists 32 zero bytes as "aa 36 91 8a" for CRC 0x8a9136aa.
 * One instance per connection thread: the checksum state is reused and not thread-safe.
 */
public final class Digest {
    private final CRC32C crc = new CRC32C();

    /** The CRC32C of {@code length} bytes at absolute index {@code at}; position and limit are unchanged. */
    public int compute(ByteBuffer b, int at, int length) {
        crc.reset();
        update(b, at, length);
        return (int) crc.getValue();
    }

    private static final byte[] ZEROS = new byte[3];

    /** Starts an incremental digest over several pieces of one data segment. */
    public void begin() {
        crc.reset();
    }

    /** Adds {@code length} bytes at absolute index {@code at}. */
    public void update(ByteBuffer b, int at, int length) {
        if (b.hasArray()) {
            crc.update(b.array(), b.arrayOffset() + at, length);
        } else {
            int pos = b.position();
            int lim = b.limit();
            b.limit(at + length).position(at);
            crc.update(b);
            b.limit(lim).position(pos);
        }
    }

    /** Adds the zero padding of a segment of {@code dataSegmentLength} bytes and returns the digest. */
    public int finishPadded(int dataSegmentLength) {
        int pad = (4 - (dataSegmentLength & 3)) & 3;
        crc.update(ZEROS, 0, pad);
        return (int) crc.getValue();
    }

    /** Writes a digest value in wire order at {@code at}. */
    public static void put(ByteBuffer b, int at, int digest) {
        b.putInt(at, Integer.reverseBytes(digest));
    }

    /** Reads a digest value in wire order from {@code at}. */
    public static int get(ByteBuffer b, int at) {
        return Integer.reverseBytes(b.getInt(at));
    }
}
