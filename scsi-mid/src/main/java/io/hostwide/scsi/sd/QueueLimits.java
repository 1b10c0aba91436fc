package io.hostwide.scsi.sd;

import io.hostwide.blk.RequestQueue;
import io.hostwide.scsi.mid.DeviceInfo;
import io.hostwide.scsi.mid.ScsiHostTemplate;

/**
 * sd's queue limits ({@code sd_revalidate_disk}, {@code sd_config_discard}), set once before the disk takes I/O:
 * <ul>
 *   <li>{@code logical_block_size} from READ CAPACITY;</li>
 *   <li>{@code max_hw_sectors} = min(host {@code max_sectors}, VPD B0h MAXIMUM TRANSFER LENGTH);</li>
 *   <li>{@code max_sectors} = OPTIMAL TRANSFER LENGTH when the device gives a usable one, else
 *       min(max_hw_sectors, {@code BLK_DEF_MAX_SECTORS_CAP});</li>
 *   <li>{@code max_segments} = the host's {@code sg_tablesize}, {@code max_segment_size} the host's;</li>
 *   <li>discard: UNMAP takes MAXIMUM UNMAP LBA COUNT, WRITE SAME(16) MAXIMUM WRITE SAME LENGTH (each
 *       {@code SD_MAX_WS16_BLOCKS} when not reported), granularity OPTIMAL UNMAP GRANULARITY; 0 when the disk does
 *       not discard.</li>
 * </ul>
 */
final class QueueLimits {
    /** {@code SD_MAX_WS16_BLOCKS}. */
    static final long MAX_WS16_BLOCKS = 0x7f_ffffL;

    private QueueLimits() {
    }

    /** Applies the limits to {@code q}; returns the largest READ/WRITE in bytes ({@code max_hw_sectors}). */
    static long apply(RequestQueue q, ScsiHostTemplate t, DeviceInfo info, DiscardMode mode) {
        int lbs = info.logicalBlockSize();
        long sectorsPerBlock = lbs / 512;
        q.setLogicalBlockSize(lbs);
        long hw = t.maxSectors();
        if (info.maxTransferBlocks() != 0) {
            hw = Math.min(hw, info.maxTransferBlocks() * sectorsPerBlock);
        }
        hw = Math.max(Math.min(hw, RequestQueue.UNLIMITED_SECTORS), sectorsPerBlock);
        hw = Math.max(hw, 8);
        q.setMaxHwSectors((int) hw);
        long opt = info.optimalTransferBlocks() * sectorsPerBlock;
        // sd_validate_opt_xfer_size: usable when set, within the hardware limit and at least a page.
        boolean optValid = opt >= 8 && opt <= hw && opt * 512 >= 4096;
        q.setMaxSectors((int) (optValid ? opt : Math.min(hw, RequestQueue.DEFAULT_MAX_SECTORS)));
        q.setMaxSegments(Math.min(t.sgTablesize(), RequestQueue.MAX_SEGMENTS_LIMIT));
        q.setMaxSegmentSize(t.maxSegmentSize());
        long discardBlocks = discardBlocks(info, mode);
        long gran = Math.max(1, info.unmapGranularity()) * lbs;
        q.setDiscardLimits((int) Math.min(discardBlocks * sectorsPerBlock, RequestQueue.UNLIMITED_SECTORS),
                (int) Math.min(gran, 1 << 30));
        return hw * 512;
    }

    /** Blocks one discard command may cover, 0 when the disk does not discard. */
    static long discardBlocks(DeviceInfo info, DiscardMode mode) {
        return switch (mode) {
            case AUTO -> info.lbpu() ? minNotZero(info.maxUnmapBlocks(), MAX_WS16_BLOCKS)
                    : info.lbpws() ? minNotZero(info.maxWriteSameBlocks(), MAX_WS16_BLOCKS) : 0;
            case UNMAP -> info.thinProvisioned() ? minNotZero(info.maxUnmapBlocks(), MAX_WS16_BLOCKS) : 0;
            case WRITE_SAME_16 -> info.thinProvisioned() ? minNotZero(info.maxWriteSameBlocks(), MAX_WS16_BLOCKS) : 0;
            case DISABLED -> 0;
        };
    }

    private static long minNotZero(long a, long b) {
        return a == 0 ? b : Math.min(a, b);
    }
}
