package io.hostwide.blk;

/**
 * Bio splitting to the queue limits ({@code bio_split_to_limits}, block/blk-merge.c): a READ or WRITE larger
 * than {@code max_sectors}, or spanning more than {@code max_segments} segments of {@code max_segment_size}, and a
 * DISCARD larger than {@code max_discard_sectors}, become several requests. Every piece ends on a logical block
 * boundary; a discard piece also ends on a {@code discard_granularity} boundary when it can
 * ({@code bio_split_discard}). FLUSH and passthrough requests are never split.
 */
final class Split {
    private Split() {
    }

    /** Physical segments a single-buffer bio of {@code length} bytes spans ({@code bio_split_rw}'s count). */
    static int physSegments(RequestQueue q, int length) {
        int mss = q.limits.maxSegmentSize;
        return length <= mss ? 1 : (int) (((long) length + mss - 1) / mss);
    }

    /** Largest READ/WRITE request the limits allow, on a logical block boundary (cached in the queue). */
    static int maxRwBytes(int maxSectors, int maxSegments, int maxSegmentSize, int lbs) {
        long bytes = Math.min(maxSectors * 512L, (long) maxSegments * maxSegmentSize);
        bytes -= bytes % lbs;
        return (int) Math.max(lbs, Math.min(bytes, Integer.MAX_VALUE - (Integer.MAX_VALUE % lbs)));
    }

    /** True when a bio of this shape needs more than one request. */
    static boolean needed(RequestQueue q, ReqOp op, int length) {
        return switch (op) {
            case READ, WRITE -> length > q.limits.maxRwBytes;
            case DISCARD -> q.limits.maxDiscardSectors != 0 && length > q.limits.maxDiscardSectors * 512L;
            default -> false;
        };
    }

    /** Bytes of the next piece of a bio at {@code offset} with {@code remaining} bytes left. */
    static int pieceLength(RequestQueue q, ReqOp op, long offset, int remaining) {
        if (op != ReqOp.DISCARD) {
            return Math.min(remaining, q.limits.maxRwBytes);
        }
        long max = q.limits.maxDiscardSectors * 512L;
        int lbs = q.limits.logicalBlockSize;
        max -= max % lbs;
        if (remaining <= max) {
            return remaining;
        }
        // bio_split_discard: end the piece on a granularity boundary, so later pieces start aligned.
        long gran = q.limits.discardGranularity;
        long end = offset + max;
        long aligned = end - Math.floorMod(end, gran);
        return (int) (aligned > offset ? aligned - offset : max);
    }
}
