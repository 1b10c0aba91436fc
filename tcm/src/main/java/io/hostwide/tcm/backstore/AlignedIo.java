package io.hostwide.tcm.backstore;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Positional whole-buffer I/O on a channel, with O_DIRECT's rule kept: under O_DIRECT the JDK stages heap buffers
 * itself, but a direct buffer must start on an aligned address, so one that does not is bounced through a
 * per-thread aligned buffer. Positions and lengths are the caller's to align (whole logical blocks, the logical
 * block being a multiple of the alignment). Shared by the file and block backstores; no lock, no allocation per
 * call once a thread has its bounce buffer.
 */
final class AlignedIo {
    /** Largest staging buffer for unaligned direct buffers under O_DIRECT. */
    static final int BOUNCE_BYTES = 1 << 20;

    private final FileChannel channel;
    /** O_DIRECT alignment in bytes, 0 without O_DIRECT. */
    private final int alignment;
    private final ThreadLocal<ByteBuffer> bounce;

    AlignedIo(FileChannel channel, int alignment) {
        this.channel = channel;
        this.alignment = alignment;
        this.bounce = alignment == 0 ? null
                : ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(BOUNCE_BYTES + alignment).alignedSlice(alignment)
                        .limit(BOUNCE_BYTES).slice());
    }

    int alignment() { return alignment; }

    /** Fills {@code dst} from {@code pos}; what lies past the end of a shorter file reads as zeros. */
    void read(long pos, ByteBuffer dst) throws IOException {
        if (alignment == 0 || directReady(dst)) {
            readFully(pos, dst);
            return;
        }
        ByteBuffer b = bounce.get();
        while (dst.hasRemaining()) {
            int n = Math.min(dst.remaining(), b.capacity());
            b.clear().limit(n);
            readFully(pos, b);
            dst.put(b.flip());
            pos += n;
        }
    }

    private void readFully(long pos, ByteBuffer dst) throws IOException {
        while (dst.hasRemaining()) {
            int n = channel.read(dst, pos);
            if (n < 0) { // beyond EOF of a file shorter than the device: zeros
                while (dst.hasRemaining()) {
                    dst.put((byte) 0);
                }
                return;
            }
            pos += n;
        }
    }

    void write(long pos, ByteBuffer src) throws IOException {
        if (alignment == 0 || directReady(src)) {
            writeFully(pos, src);
            return;
        }
        ByteBuffer b = bounce.get();
        while (src.hasRemaining()) {
            int n = Math.min(src.remaining(), b.capacity());
            b.clear().put(b.position(), src, src.position(), n).limit(n);
            writeFully(pos, b);
            src.position(src.position() + n);
            pos += n;
        }
    }

    private void writeFully(long pos, ByteBuffer src) throws IOException {
        while (src.hasRemaining()) {
            pos += channel.write(src, pos);
        }
    }

    private boolean directReady(ByteBuffer b) {
        return !b.isDirect() || b.alignmentOffset(b.position(), alignment) == 0;
    }
}
