package io.hostwide.blk;

/**
 * Tag-set and hctx flags ({@code BLK_MQ_F_*}), as bits; {@link #decode} prints them
 * as debugfs does ({@code TAG_QUEUE_SHARED|TAG_HCTX_SHARED}).
 */
public final class TagSetFlags {
    /** Set automatically on every hctx once two or more request queues use the set. */
    public static final int TAG_QUEUE_SHARED = 1 << 1;
    /** {@code queue_rq} may sleep; dispatch never runs inside a completion. */
    public static final int BLOCKING = 1 << 5;
    /** One host-wide tag space for all hardware queues ({@code BLK_MQ_F_TAG_HCTX_SHARED}). */
    public static final int TAG_HCTX_SHARED = 1 << 3;
    /** Round-robin tag allocation ({@code BLK_MQ_F_TAG_RR}). */
    public static final int TAG_RR = 1 << 4;
    /** Start new queues with scheduler {@code none}. */
    public static final int NO_SCHED_BY_DEFAULT = 1 << 6;

    private static final int[] BITS = {TAG_QUEUE_SHARED, TAG_HCTX_SHARED, TAG_RR, BLOCKING, NO_SCHED_BY_DEFAULT};
    private static final String[] NAMES = {"TAG_QUEUE_SHARED", "TAG_HCTX_SHARED", "TAG_RR", "BLOCKING",
        "NO_SCHED_BY_DEFAULT"};
    /** Flags a driver may pass in {@link TagSetConfig}; TAG_QUEUE_SHARED is the block layer's own. */
    public static final int SETTABLE = BLOCKING | TAG_HCTX_SHARED | TAG_RR | NO_SCHED_BY_DEFAULT;

    private TagSetFlags() {
    }

    /** The debugfs form: names joined by '|', unknown bits as hex, empty string for none. */
    public static String decode(int flags) {
        StringBuilder sb = new StringBuilder();
        int rest = flags;
        for (int i = 0; i < BITS.length; i++) {
            if ((flags & BITS[i]) != 0) {
                sb.append(sb.isEmpty() ? "" : "|").append(NAMES[i]);
                rest &= ~BITS[i];
            }
        }
        if (rest != 0) {
            sb.append(sb.isEmpty() ? "" : "|").append("0x").append(Integer.toHexString(rest));
        }
        return sb.toString();
    }
}
