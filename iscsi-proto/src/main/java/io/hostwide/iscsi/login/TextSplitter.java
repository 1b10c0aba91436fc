package io.hostwide.iscsi.login;

import java.nio.ByteBuffer;

/**
 * Sends a text reply longer than the peer's MaxRecvDataSegmentLength in pieces, with C=1 on all but the last
 * (RFC 7143 §11.11.2, §11.13.2); the peer asks for each next piece with an empty request.
 */
public final class TextSplitter {
    private final byte[] text;
    private final int chunk;
    private int offset;

    public TextSplitter(byte[] text, int maxSegment) {
        this.text = text;
        this.chunk = Math.max(1, maxSegment);
    }

    /** The next piece (read-only). */
    public ByteBuffer next() {
        int n = Math.min(chunk, text.length - offset);
        ByteBuffer piece = ByteBuffer.wrap(text, offset, n).slice().asReadOnlyBuffer();
        offset += n;
        return piece;
    }

    /** True while pieces remain after the last one returned (the C bit of that piece). */
    public boolean more() {
        return offset < text.length;
    }
}
