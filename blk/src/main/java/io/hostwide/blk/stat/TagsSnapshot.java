package io.hostwide.blk.stat;

import io.hostwide.sbitmap.SbitmapDump;

/**
 * debugfs {@code hctxN/tags} ({@code blk_mq_debugfs_tags_show}).
 *
 * @param breservedTags null when there are no reserved tags
 */
public record TagsSnapshot(int nrTags, int nrReservedTags, int activeQueues, int busy,
                           SbitmapDump bitmapTags, SbitmapDump breservedTags) {
}
