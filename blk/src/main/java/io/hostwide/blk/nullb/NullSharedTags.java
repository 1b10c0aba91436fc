package io.hostwide.blk.nullb;

import io.hostwide.blk.TagSet;
import io.hostwide.blk.exec.Kblockd;

/**
 * The process-wide tag set of {@code shared_tags=1} devices (null_blk's global
 * {@code tag_set}), created by the first such device with its geometry and freed
 * with the last. Later devices must ask for the same geometry.
 */
final class NullSharedTags {
    private static TagSet set;
    private static NullConfig creator;
    private static int users;

    private NullSharedTags() {
    }

    static synchronized TagSet acquire(NullConfig cfg, Kblockd kblockd) {
        if (set == null) {
            set = NullDevice.newTagSet(cfg, kblockd);
            creator = cfg;
        } else {
            same("submit_queues", cfg.submitQueues(), creator.submitQueues());
            same("hw_queue_depth", cfg.hwQueueDepth(), creator.hwQueueDepth());
            same("shared_tag_bitmap", cfg.sharedTagBitmap() ? 1 : 0, creator.sharedTagBitmap() ? 1 : 0);
            same("blocking", cfg.blocking() ? 1 : 0, creator.blocking() ? 1 : 0);
            if (set.kblockd() != kblockd) {
                throw new IllegalArgumentException("shared_tags=1: devices sharing tags must use the same executor");
            }
        }
        users++;
        return set;
    }

    static synchronized void release(TagSet s) {
        if (s != set) {
            return;
        }
        if (--users == 0) {
            set.close();
            set = null;
            creator = null;
        }
    }

    private static void same(String knob, long mine, long shared) {
        if (mine != shared) {
            throw new IllegalArgumentException("shared_tags=1: " + knob + "=" + mine
                    + " differs from the shared tag set's " + knob + "=" + shared);
        }
    }
}
