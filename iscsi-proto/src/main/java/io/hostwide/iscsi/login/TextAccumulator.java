package io.hostwide.iscsi.login;

import java.nio.ByteBuffer;

/**
 * Joins the data segments of a text sequence sent with the C (continue) bit, RFC 7143 §11.10.2 and §11.12.2, up to a
 * bound so that an endless C=1 stream cannot exhaust memory.
 */
public final class TextAccumulator {
    /** The largest joined text we accept (a SendTargets=All reply is generated here, not received). */
    public static final int MAX_TOTAL = 64 * 1024;

    private byte[] buf = new byte[0];
    private int length;

    /** Appends a segment; false when the bound would be exceeded (the caller fails the negotiation). */
    public boolean append(ByteBuffer segment) {
        int n = segment.remaining();
        if (length + n > MAX_TOTAL) {
            return false;
        }
        if (length + n > buf.length) {
            byte[] grown = new byte[Math.max(length + n, Math.min(MAX_TOTAL, buf.length * 2 + 256))];
            System.arraycopy(buf, 0, grown, 0, length);
            buf = grown;
        }
        segment.get(segment.position(), buf, length, n);
        length += n;
        return true;
    }

    /** The joined text so far, and resets for the next sequence. */
    public ByteBuffer take() {
        ByteBuffer out = ByteBuffer.wrap(buf, 0, length).slice();
        buf = new byte[0];
        length = 0;
        return out;
    }

    public boolean isEmpty() {
        return length == 0;
    }
}
