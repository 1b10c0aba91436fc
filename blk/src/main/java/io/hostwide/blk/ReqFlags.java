package io.hostwide.blk;

/**
 * Request flags a submitter may set: on a WRITE {@code REQ_FUA} and {@code REQ_PREFLUSH} (see {@link FlushSeq}); on
 * any data request {@code REQ_NOMERGE}.
 */
public final class ReqFlags {
    /** Forced unit access: the data is durable when the request completes. */
    public static final int FUA = 1;
    /** The device's volatile cache is flushed before the data is written. */
    public static final int PREFLUSH = 2;
    /**
     * {@code REQ_NOMERGE}: the request keeps its own size; no other I/O merges into it, nor it into another, so a
     * plugged batch of neighbours still reaches the device as one command each (what a benchmark that states its
     * block size means).
     */
    public static final int NOMERGE = 4;
    /** Every flag a submitter may set. */
    public static final int ALL = FUA | PREFLUSH | NOMERGE;

    private ReqFlags() {
    }

    /** Checks {@code flags} for {@code op}: FUA and PREFLUSH only on WRITE (PREFLUSH also on FLUSH), NOMERGE on data. */
    public static void check(ReqOp op, int flags) {
        if ((flags & ~ALL) != 0) {
            throw new IllegalArgumentException("unknown request flags 0x" + Integer.toHexString(flags & ~ALL));
        }
        if ((flags & FUA) != 0 && op != ReqOp.WRITE) {
            throw new IllegalArgumentException("FUA is only for WRITE, not " + op);
        }
        if ((flags & PREFLUSH) != 0 && op != ReqOp.WRITE && op != ReqOp.FLUSH) {
            throw new IllegalArgumentException("PREFLUSH is only for WRITE or FLUSH, not " + op);
        }
        if ((flags & NOMERGE) != 0 && !op.hasData()) {
            throw new IllegalArgumentException("NOMERGE is only for requests with data, not " + op);
        }
    }
}
