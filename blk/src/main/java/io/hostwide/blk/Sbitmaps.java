package io.hostwide.blk;

import io.hostwide.sbitmap.ShardedSbitmapQueue;
import io.hostwide.sbitmap.SbitmapConfig;
import io.hostwide.sbitmap.SbitmapQueue;

/** The one place the block layer picks an {@link SbitmapQueue} implementation. */
final class Sbitmaps {
    private Sbitmaps() {
    }

    static SbitmapQueue create(SbitmapConfig config) {
        return new ShardedSbitmapQueue(config);
    }
}
