package io.hostwide.iscsi.pdu;

import io.hostwide.iscsi.spec.Bhs;
import java.nio.ByteBuffer;

/** Absolute big-endian field access shared by the PDU readers and writers. Never moves position or limit. */
final class Wire {
    private Wire() {}

    static int u8(ByteBuffer b, int at) {
        return b.get(at) & 0xff;
    }

    static int u16(ByteBuffer b, int at) {
        return b.getShort(at) & 0xffff;
    }

    static int u24(ByteBuffer b, int at) {
        return (u8(b, at) << 16) | (u8(b, at + 1) << 8) | u8(b, at + 2);
    }

    static void put24(ByteBuffer b, int at, int v) {
        b.put(at, (byte) (v >>> 16));
        b.put(at + 1, (byte) (v >>> 8));
        b.put(at + 2, (byte) v);
    }

    /** The 6-byte ISID as the low 48 bits of a long, RFC 7143 §11.12.5. */
    static long u48(ByteBuffer b, int at) {
        return ((long) u16(b, at) << 32) | (b.getInt(at + 2) & 0xffff_ffffL);
    }

    static void put48(ByteBuffer b, int at, long v) {
        b.putShort(at, (short) (v >>> 32));
        b.putInt(at + 2, (int) v);
    }

    /** Zeroes the 48-byte BHS at {@code at} so that reserved fields go out as 0 (RFC 7143 §11.2). */
    static void clearBhs(ByteBuffer b, int at) {
        for (int i = 0; i < Bhs.LENGTH; i += 8) {
            b.putLong(at + i, 0L);
        }
    }

    /** Writes byte 0 (I bit + opcode), byte 1 (flags) and the DataSegmentLength; clears everything else. */
    static void header(ByteBuffer b, int at, int opcode, boolean immediate, int flags, int dataSegmentLength) {
        clearBhs(b, at);
        b.put(at + Bhs.OPCODE, (byte) ((immediate ? Bhs.IMMEDIATE_BIT : 0) | opcode));
        b.put(at + Bhs.FLAGS, (byte) flags);
        put24(b, at + Bhs.DATA_SEGMENT_LENGTH, dataSegmentLength);
    }

    static int length(ByteBuffer data) {
        return data == null ? 0 : data.remaining();
    }

    /** Rounds a data segment length up to a 4-byte boundary, RFC 7143 §11.2.3 (padding to a 4-byte word). */
    static int padded(int length) {
        return (length + 3) & ~3;
    }
}
