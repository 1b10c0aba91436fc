package io.hostwide.blk;

import java.util.Locale;

/**
 * Kashyap Desai's three changes for a shared tag set (seed 001, digest §2.11) as switches on a {@link TagSet}
 * ({@link TagSet#setSharedTagModes}). No bit set ({@link #IMPROVED}) is the default; each bit selects the
 * behaviour of the host_tagset RFC v6 kernel he measured, so the lab can show each change alone.
 *
 * <ol>
 *   <li>{@link #OUTSTANDING_PER_HCTX} (old of change 1): with host-wide tags each hctx is its own fair-share user
 *       (per-hctx TAG_ACTIVE, {@code active_queues} counts hctxs) and {@code hctx_may_queue} compares only that
 *       hctx's {@code nr_active}. Default: one user per request queue and its outstanding requests counted across
 *       all of its hctxs ({@code QUEUE_FLAG_HCTX_ACTIVE}, {@code nr_active_requests_shared_tags}, as merged).</li>
 *   <li>{@link #RUN_ALL_HCTX_ON_COMPLETION} (old of change 2): on a shared tag set every completion re-runs all
 *       hctxs of its queue ({@code scsi_end_request} → {@code blk_mq_run_hw_queues(q, true)} in v5.5);
 *       {@link #RUN_COMPLETING_HCTX_ON_COMPLETION} is his change, the completing hctx only. With neither (the
 *       default) a completion runs nothing unconditionally: RESTART marks, the {@code dispatch_wait} tag waiters
 *       and the budget restarts re-run exactly the queues that wait, as upstream does since v5.9.</li>
 *   <li>{@link #WAKE_ALL_PER_HCTX} (old of change 3): when a queue goes idle ({@code blk_mq_tag_idle}) every one
 *       of its hctxs wakes all tag waiters; default: once per tag space.</li>
 * </ol>
 */
public final class SharedTagModes {
    /** Kashyap's three changes all in effect (and upstream's completion path). */
    public static final int IMPROVED = 0;
    public static final int OUTSTANDING_PER_HCTX = 1;
    public static final int RUN_ALL_HCTX_ON_COMPLETION = 1 << 1;
    public static final int RUN_COMPLETING_HCTX_ON_COMPLETION = 1 << 2;
    public static final int WAKE_ALL_PER_HCTX = 1 << 3;
    /** The RFC v6 kernel of the seed, before any of the three changes. */
    public static final int OLD = OUTSTANDING_PER_HCTX | RUN_ALL_HCTX_ON_COMPLETION | WAKE_ALL_PER_HCTX;
    /** Every valid bit. */
    public static final int ALL_BITS = OLD | RUN_COMPLETING_HCTX_ON_COMPLETION;

    private static final int[] BITS = {OUTSTANDING_PER_HCTX, RUN_ALL_HCTX_ON_COMPLETION,
        RUN_COMPLETING_HCTX_ON_COMPLETION, WAKE_ALL_PER_HCTX};
    private static final String[] NAMES = {"outstanding_per_hctx", "run_all_hctx", "run_completing_hctx",
        "wake_all_per_hctx"};

    private SharedTagModes() {
    }

    /** Throws unless {@code modes} is a valid combination. */
    static int check(int modes) {
        if ((modes & ~ALL_BITS) != 0) {
            throw new IllegalArgumentException("unknown shared-tag mode bits 0x"
                    + Integer.toHexString(modes & ~ALL_BITS));
        }
        if ((modes & RUN_ALL_HCTX_ON_COMPLETION) != 0 && (modes & RUN_COMPLETING_HCTX_ON_COMPLETION) != 0) {
            throw new IllegalArgumentException("run_all_hctx and run_completing_hctx exclude each other");
        }
        return modes;
    }

    /** {@code "old"}, {@code "improved"}, or names joined by '+' (e.g. {@code outstanding_per_hctx+run_all_hctx}). */
    public static int parse(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        if (t.equals("old")) {
            return OLD;
        }
        if (t.equals("improved") || t.isEmpty()) {
            return IMPROVED;
        }
        int m = 0;
        for (String part : t.split("\\+")) {
            int bit = -1;
            for (int i = 0; i < NAMES.length; i++) {
                if (NAMES[i].equals(part.trim())) {
                    bit = BITS[i];
                }
            }
            if (bit < 0) {
                throw new IllegalArgumentException("shared-tag mode must be old, improved or names from "
                        + String.join(", ", NAMES) + " joined by '+', got '" + s + "'");
            }
            m |= bit;
        }
        return check(m);
    }

    /** The inverse of {@link #parse}: {@code improved}, or the set names joined by '+'. */
    public static String decode(int modes) {
        if (modes == IMPROVED) {
            return "improved";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < BITS.length; i++) {
            if ((modes & BITS[i]) != 0) {
                sb.append(sb.isEmpty() ? "" : "+").append(NAMES[i]);
            }
        }
        return sb.toString();
    }
}
