package io.hostwide.blk;

/**
 * What a driver asks of a tag set ({@code struct blk_mq_tag_set} fields).
 *
 * @param nrHwQueues    hardware queues (≥ 1)
 * @param queueDepth    tags per {@link Tags}, <b>including</b> reserved ones; ≤ {@link #MAX_DEPTH}
 * @param reservedTags  tags 0..r-1 kept for driver-internal requests; queueDepth ≥ reserved+1
 * @param timeoutMillis default request timeout; 0 means 30 s
 * @param flags         {@link TagSetFlags#SETTABLE} bits
 * @param nrCtx         software queues per request queue (the kernel's CPUs); 0 means
 *                      max(nrHwQueues, available processors)
 */
public record TagSetConfig(int nrHwQueues, int queueDepth, int reservedTags, long timeoutMillis, int flags, int nrCtx) {

    /** {@code BLK_MQ_MAX_DEPTH}. */
    public static final int MAX_DEPTH = 10240;
    /** Default request timeout when {@code timeoutMillis} is 0. */
    public static final long DEFAULT_TIMEOUT_MILLIS = 30_000;
    /** A sanity bound on hardware queues (the kernel bounds by CPUs). */
    public static final int MAX_HW_QUEUES = 1024;

    public TagSetConfig {
        if (nrHwQueues < 1 || nrHwQueues > MAX_HW_QUEUES) {
            throw new IllegalArgumentException("nr_hw_queues must be 1.." + MAX_HW_QUEUES + ", got " + nrHwQueues);
        }
        if (reservedTags < 0) {
            throw new IllegalArgumentException("reserved_tags must be >= 0, got " + reservedTags);
        }
        if (queueDepth > MAX_DEPTH || queueDepth < reservedTags + 1) {
            throw new IllegalArgumentException("queue_depth must be " + (reservedTags + 1) + ".." + MAX_DEPTH
                    + " (reserved_tags=" + reservedTags + " + 1 at least), got " + queueDepth);
        }
        if (timeoutMillis < 0) {
            throw new IllegalArgumentException("timeout must be >= 0 ms, got " + timeoutMillis);
        }
        if ((flags & ~TagSetFlags.SETTABLE) != 0) {
            throw new IllegalArgumentException("flags not settable by a driver: " + TagSetFlags.decode(flags & ~TagSetFlags.SETTABLE));
        }
        if (nrCtx < 0) {
            throw new IllegalArgumentException("nr_ctx must be >= 0, got " + nrCtx);
        }
        if (nrCtx == 0) {
            nrCtx = Math.max(nrHwQueues, Runtime.getRuntime().availableProcessors());
        }
    }

    public static TagSetConfig of(int nrHwQueues, int queueDepth) {
        return new TagSetConfig(nrHwQueues, queueDepth, 0, 0, 0, 0);
    }

    public TagSetConfig withQueueDepth(int depth) {
        return new TagSetConfig(nrHwQueues, depth, reservedTags, timeoutMillis, flags, nrCtx);
    }

    public TagSetConfig withReserved(int reserved) {
        return new TagSetConfig(nrHwQueues, queueDepth, reserved, timeoutMillis, flags, nrCtx);
    }

    public TagSetConfig withTimeoutMillis(long ms) {
        return new TagSetConfig(nrHwQueues, queueDepth, reservedTags, ms, flags, nrCtx);
    }

    public TagSetConfig withFlags(int newFlags) {
        return new TagSetConfig(nrHwQueues, queueDepth, reservedTags, timeoutMillis, newFlags, nrCtx);
    }

    public TagSetConfig withNrCtx(int n) {
        return new TagSetConfig(nrHwQueues, queueDepth, reservedTags, timeoutMillis, flags, n);
    }

    public boolean hostTagset() {
        return (flags & TagSetFlags.TAG_HCTX_SHARED) != 0;
    }

    public long effectiveTimeoutNanos() {
        return (timeoutMillis == 0 ? DEFAULT_TIMEOUT_MILLIS : timeoutMillis) * 1_000_000L;
    }
}
