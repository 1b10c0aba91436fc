package io.hostwide.iscsi.pdu;

import io.hostwide.iscsi.spec.Bhs;
import io.hostwide.iscsi.spec.Codes;
import java.nio.ByteBuffer;

/**
 * Writes PDUs into a caller-supplied buffer: BHS, AHS, header digest, data segment, padding to 4 bytes, data digest
 * (RFC 7143 §11.2). One instance per connection (it owns a {@link Digest}); digests are switched on once login
 * completes. The hot path uses {@link #sealHeader} and {@link #appendData} around a {@link ResponseHeaders} write.
 */
public final class PduEncoder {
    private final boolean headerDigest;
    private final boolean dataDigest;
    private final Digest digest = new Digest();

    public PduEncoder(boolean headerDigest, boolean dataDigest) {
        this.headerDigest = headerDigest;
        this.dataDigest = dataDigest;
    }

    public boolean headerDigest() {
        return headerDigest;
    }

    public boolean dataDigest() {
        return dataDigest;
    }

    /** The bytes {@link #encode} writes for {@code pdu}. */
    public int encodedLength(Pdu pdu) {
        int ahs = pdu instanceof ScsiCommand c ? c.totalAhsWords() * 4 : 0;
        return headerLength(ahs) + dataLength(pdu.data().remaining());
    }

    /** BHS + AHS + header digest. */
    public int headerLength(int ahsBytes) {
        return Bhs.LENGTH + ahsBytes + (headerDigest ? Codes.DIGEST_LENGTH : 0);
    }

    /** Padded data segment + data digest; 0 for an empty segment (no data digest without data, RFC 7143 §11.2.4). */
    public int dataLength(int dataSegmentLength) {
        if (dataSegmentLength == 0) {
            return 0;
        }
        return Wire.padded(dataSegmentLength) + (dataDigest ? Codes.DIGEST_LENGTH : 0);
    }

    /**
     * Encodes {@code pdu} at the buffer's position and advances it. Returns the bytes written, or -1 (writing nothing)
     * when the buffer has too little room.
     */
    public int encode(Pdu pdu, ByteBuffer out) {
        int need = encodedLength(pdu);
        if (out.remaining() < need) {
            return -1;
        }
        int at = out.position();
        pdu.writeBhs(out, at);
        int ahs = pdu instanceof ScsiCommand c ? c.writeAhs(out, at + Bhs.LENGTH) : 0;
        out.position(sealHeader(out, at, ahs));
        appendData(out, pdu.data());
        return out.position() - at;
    }

    /**
     * Appends the header digest after the BHS and {@code ahsBytes} of AHS written at {@code at}; returns the index just
     * after the header. Does not move the position.
     */
    public int sealHeader(ByteBuffer out, int at, int ahsBytes) {
        int end = at + Bhs.LENGTH + ahsBytes;
        if (headerDigest) {
            Digest.put(out, end, digest.compute(out, at, end - at));
            end += Codes.DIGEST_LENGTH;
        }
        return end;
    }

    /** Copies {@code data} (its remaining bytes, not consumed) at the position, pads it and adds the data digest. */
    public void appendData(ByteBuffer out, ByteBuffer data) {
        appendData(out, data, data.position(), data.remaining());
    }

    /** Copies {@code length} bytes of {@code src} from absolute index {@code from}, pads them, adds the data digest. */
    public void appendData(ByteBuffer out, ByteBuffer src, int from, int length) {
        if (length == 0) {
            return;
        }
        int at = out.position();
        out.put(at, src, from, length);
        finishData(out, at, length);
    }

    /**
     * Pads the {@code length} bytes already written at {@code at} to 4 bytes, appends the data digest (RFC 7143
     * §11.2.4: digests cover the padding) and moves the position past them.
     */
    public void finishData(ByteBuffer out, int at, int length) {
        if (length == 0) {
            out.position(at);
            return;
        }
        int padded = Wire.padded(length);
        for (int i = length; i < padded; i++) {
            out.put(at + i, (byte) 0);
        }
        int end = at + padded;
        if (dataDigest) {
            Digest.put(out, end, digest.compute(out, at, padded));
            end += Codes.DIGEST_LENGTH;
        }
        out.position(end);
    }

    /**
     * What follows a data segment that goes out from its own buffer (a gathering write) instead of being copied:
     * the zero padding to 4 bytes and the data digest over {@code length} bytes of {@code src} at {@code from} plus
     * that padding (RFC 7143 §11.2.4). Written at the position of {@code out}, which moves past them; {@code src}
     * is only read.
     */
    public void appendTrailer(ByteBuffer out, ByteBuffer src, int from, int length) {
        if (length == 0) {
            return;
        }
        int at = out.position();
        int pad = Wire.padded(length) - length;
        for (int i = 0; i < pad; i++) {
            out.put(at + i, (byte) 0);
        }
        int end = at + pad;
        if (dataDigest) {
            digest.begin();
            digest.update(src, from, length);
            Digest.put(out, end, digest.finishPadded(length));
            end += Codes.DIGEST_LENGTH;
        }
        out.position(end);
    }

    /**
     * The data digest of a segment that is not contiguous in memory (gathering writes): the caller has fed the pieces
     * to {@code d}; this adds the padding and returns the value for {@link Digest#put}.
     */
    public static int finishDataDigest(Digest d, int dataSegmentLength) {
        return d.finishPadded(dataSegmentLength);
    }
}
