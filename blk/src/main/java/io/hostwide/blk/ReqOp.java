package io.hostwide.blk;

/** The operations a request carries ({@code req_op}). */
public enum ReqOp {
    READ,
    WRITE,
    FLUSH,
    DISCARD;

    /** True when data moves from the device into the caller's buffer. */
    public boolean isRead() {
        return this == READ;
    }

    /** True when the op carries a data buffer. */
    public boolean hasData() {
        return this == READ || this == WRITE;
    }
}
