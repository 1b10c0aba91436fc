package io.hostwide.blk;

/** The operations a request carries ({@code req_op}). */
public enum ReqOp {
    READ,
    WRITE,
    FLUSH,
    DISCARD,
    /**
     * Driver-private command with data from the device ({@code REQ_OP_DRV_IN}, SG_IO's role): the request carries
     * the driver's command description ({@link Request#passthrough()}); never split, merged or scheduled.
     */
    DRV_IN,
    /** Driver-private command with data to the device ({@code REQ_OP_DRV_OUT}), e.g. VERIFY with BYTCHK=1. */
    DRV_OUT;

    /** True when data moves from the device into the caller's buffer. */
    public boolean isRead() {
        return this == READ || this == DRV_IN;
    }

    /** True for the driver-private (passthrough) ops. */
    public boolean isPassthrough() {
        return this == DRV_IN || this == DRV_OUT;
    }

    /** True when the op carries a data buffer. */
    public boolean hasData() {
        return this == READ || this == WRITE;
    }
}
