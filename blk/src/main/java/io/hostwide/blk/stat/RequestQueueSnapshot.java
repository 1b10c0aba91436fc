package io.hostwide.blk.stat;

import java.util.List;

/**
 * One request queue, as {@code /sys/block/<dev>/queue/} plus debugfs.
 *
 * @param scheduler   sysfs form, e.g. {@code [none] mq-deadline}
 * @param inFlight    requests the driver holds
 * @param allocated   requests allocated and not yet freed
 * @param queued      sum of hctx {@code queued}
 * @param dispatched  sum of hctx {@code dispatched}
 * @param readMerges  reads merged into other requests ({@code stat} field 2)
 * @param writeMerges writes merged into other requests ({@code stat} field 6)
 * @param nomerges    {@code queue/nomerges}
 * @param rotational  {@code queue/rotational}
 * @param writeCache  {@code queue/write_cache}: "write back" when true
 * @param fua         {@code queue/fua}
 * @param splits      bios split to fit the limits
 * @param flushStages flush-sequence stages issued after a first one (PREFLUSH/POSTFLUSH around writes)
 */
public record RequestQueueSnapshot(String name, int nrRequests, String scheduler, long ioTimeoutMillis,
                                   int nrHwQueues, int nrCtx, boolean quiesced, int inFlight, int allocated,
                                   long queued, long dispatched, long completed, long timeouts,
                                   long readMerges, long writeMerges, int nomerges, int maxSegments,
                                   int maxSectorsKb, boolean rotational, int maxHwSectorsKb, int maxSegmentSize,
                                   int logicalBlockSize, long discardMaxBytes, int discardGranularity,
                                   boolean writeCache, boolean fua, long splits, long flushStages,
                                   List<HctxSnapshot> hctxs) {
}
