package io.hostwide.blk;

import java.nio.ByteBuffer;

/**
 * One submission before it has a request ({@code struct bio}, a single segment):
 * what {@link Submitter} tries to merge into an existing request before it
 * allocates one. Mutable and reused: each submitter owns one, so nothing is
 * allocated per I/O. Schedulers see it in {@link IoScheduler#bioMerge}; only the
 * block layer changes it.
 */
public final class Bio {
    ReqOp op;
    long offset;
    int length;
    ByteBuffer buf;
    IoCallback cb;
    long userData;

    void set(ReqOp op, long offset, int length, ByteBuffer buf, IoCallback cb, long userData) {
        this.op = op;
        this.offset = offset;
        this.length = length;
        this.buf = buf;
        this.cb = cb;
        this.userData = userData;
    }

    public ReqOp op() {
        return op;
    }

    /** Device byte offset. */
    public long offset() {
        return offset;
    }

    public int length() {
        return length;
    }

    /** Device end ({@code bio_end_sector}, in bytes). */
    public long end() {
        return offset + length;
    }
}
