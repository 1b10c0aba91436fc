package io.hostwide.blk;

/** Request flags a submitter may set on a WRITE ({@code REQ_FUA}, {@code REQ_PREFLUSH}); see {@link FlushSeq}. */
public final class ReqFlags {
    /** Forced unit access: the data is durable when the request completes. */
    public static final int FUA = 1;
    /** The device's volatile cache is flushed before the data is written. */
    public static final int PREFLUSH = 2;
    /** Every flag a submitter may set. */
    public static final int ALL = FUA | PREFLUSH;

    private ReqFlags() {
    }

    /** Checks {@code flags} for {@code op}: FUA and PREFLUSH only on WRITE (PREFLUSH also on FLUSH). */
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
    }
}
