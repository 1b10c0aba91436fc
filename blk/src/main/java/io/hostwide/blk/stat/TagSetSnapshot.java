package io.hostwide.blk.stat;

import java.util.List;

/**
 * A tag set ({@code blk_mq_tag_set}) for {@code hostwide stat}.
 *
 * @param flags decoded like debugfs, e.g. {@code TAG_HCTX_SHARED|BLOCKING}
 * @param tags  one entry with host-wide tags, else one per hardware queue
 * @param queues names of the request queues using the set
 */
public record TagSetSnapshot(int queueDepth, int reservedTags, int nrHwQueues, boolean hostTagset,
                             String flags, long timeoutMillis, int busy, int activeQueues,
                             List<String> queues, List<TagsSnapshot> tags) {
}
