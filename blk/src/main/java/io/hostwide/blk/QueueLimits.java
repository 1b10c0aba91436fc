package io.hostwide.blk;

import static io.hostwide.blk.RequestQueue.DEFAULT_MAX_SECTORS;
import static io.hostwide.blk.RequestQueue.DEFAULT_MAX_SEGMENT_SIZE;
import static io.hostwide.blk.RequestQueue.MAX_SEGMENTS_LIMIT;
import static io.hostwide.blk.RequestQueue.MIN_SEGMENT_SIZE;
import static io.hostwide.blk.RequestQueue.UNLIMITED_SECTORS;

/**
 * One queue's {@code struct queue_limits} (block/blk-settings.c): the sizes a request may have and the device
 * features that shape a write (cache, FUA, rotational). Drivers set them through {@link RequestQueue}'s
 * {@code blk_queue_*}-like setters while setting the queue up; {@link Split}, {@link Merge}, {@link FlushSeq} and
 * the submitter read the fields on the I/O path. Each setter validates as the sysfs write or the kernel helper
 * does and keeps {@link #maxRwBytes} current, so the hot path reads one precomputed bound.
 */
final class QueueLimits {
    /** {@code queue/max_segments}: physical segments (of {@link #maxSegmentSize}) one request may span. */
    volatile int maxSegments = Request.MAX_SEGMENTS;
    /** {@code queue/max_sectors_kb} in 512-byte sectors ({@code BLK_DEF_MAX_SECTORS_CAP}); ≤ {@link #maxHwSectors}. */
    volatile int maxSectors = DEFAULT_MAX_SECTORS;
    /** {@code queue/max_hw_sectors_kb} in 512-byte sectors: what the device can take in one request. */
    volatile int maxHwSectors = UNLIMITED_SECTORS;
    /** {@code queue/max_segment_size}: bytes one physical segment may span. */
    volatile int maxSegmentSize = DEFAULT_MAX_SEGMENT_SIZE;
    /** {@code queue/logical_block_size}: every split lands on a multiple of it. */
    volatile int logicalBlockSize = 512;
    /** Largest READ/WRITE request the limits above allow ({@link Split#maxRwBytes}), kept current by the setters. */
    volatile int maxRwBytes = Split.maxRwBytes(DEFAULT_MAX_SECTORS, Request.MAX_SEGMENTS, DEFAULT_MAX_SEGMENT_SIZE, 512);
    /** {@code queue/discard_max_bytes} in sectors; 0 = discard not supported by the device. */
    volatile int maxDiscardSectors = UNLIMITED_SECTORS;
    /** {@code queue/discard_granularity} in bytes: discard splits end on a multiple of it. */
    volatile int discardGranularity = 512;
    /** {@code queue/write_cache}: the device has a volatile write cache, so FLUSH and PREFLUSH reach it. */
    volatile boolean writeCache = true;
    /** {@code queue/fua}: the device honours FUA on writes ({@code BLK_FEAT_FUA}). */
    volatile boolean fua;
    /** {@code queue/rotational}. */
    volatile boolean rotational;

    void setMaxSegments(int v) {
        if (v < 1 || v > MAX_SEGMENTS_LIMIT) {
            throw new IllegalArgumentException("max_segments must be 1.." + MAX_SEGMENTS_LIMIT + ", got " + v);
        }
        maxSegments = v;
        limitsChanged();
    }

    void setMaxSectorsKb(int kb) {
        int hwKb = maxHwSectors / 2;
        if (kb < 4 || kb > hwKb) {
            throw new IllegalArgumentException("max_sectors_kb must be 4.." + hwKb + " (max_hw_sectors_kb), got " + kb);
        }
        maxSectors = kb * 2;
        limitsChanged();
    }

    void setMaxHwSectors(int sectors) {
        if (sectors < 8 || sectors > UNLIMITED_SECTORS) {
            throw new IllegalArgumentException("max_hw_sectors must be 8.." + UNLIMITED_SECTORS + ", got " + sectors);
        }
        maxHwSectors = sectors;
        if (maxSectors > sectors) {
            maxSectors = sectors;
        }
        limitsChanged();
    }

    void setMaxSectors(int sectors) {
        if (sectors < 8 || sectors > maxHwSectors) {
            throw new IllegalArgumentException("max_sectors must be 8.." + maxHwSectors + ", got " + sectors);
        }
        maxSectors = sectors;
        limitsChanged();
    }

    void setMaxSegmentSize(int bytes) {
        if (bytes < MIN_SEGMENT_SIZE) {
            throw new IllegalArgumentException("max_segment_size must be >= " + MIN_SEGMENT_SIZE + ", got " + bytes);
        }
        maxSegmentSize = bytes;
        limitsChanged();
    }

    void setLogicalBlockSize(int bytes) {
        if (bytes < 512 || bytes > 65536 || Integer.bitCount(bytes) != 1) {
            throw new IllegalArgumentException("logical_block_size must be a power of two 512..65536, got " + bytes);
        }
        logicalBlockSize = bytes;
        limitsChanged();
        if (discardGranularity < bytes) {
            discardGranularity = bytes;
        }
    }

    void setDiscardLimits(int maxSectors, int granularityBytes) {
        if (maxSectors < 0 || maxSectors > UNLIMITED_SECTORS) {
            throw new IllegalArgumentException("max_discard_sectors must be 0.." + UNLIMITED_SECTORS + ", got " + maxSectors);
        }
        if (granularityBytes < logicalBlockSize || granularityBytes % logicalBlockSize != 0) {
            throw new IllegalArgumentException("discard_granularity must be a multiple of " + logicalBlockSize
                    + ", got " + granularityBytes);
        }
        if (maxSectors != 0 && (long) maxSectors * 512 < logicalBlockSize) {
            throw new IllegalArgumentException("max_discard_sectors " + maxSectors + " is below one logical block");
        }
        maxDiscardSectors = maxSectors;
        discardGranularity = granularityBytes;
    }

    /** {@code blk_queue_write_cache}: FUA means nothing without a cache. */
    void setWriteCache(boolean wc, boolean fua) {
        this.writeCache = wc;
        this.fua = wc && fua;
    }

    private void limitsChanged() {
        maxRwBytes = Split.maxRwBytes(maxSectors, maxSegments, maxSegmentSize, logicalBlockSize);
    }
}
