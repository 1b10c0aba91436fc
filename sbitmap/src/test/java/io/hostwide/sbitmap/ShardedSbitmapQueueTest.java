package io.hostwide.sbitmap;

class ShardedSbitmapQueueTest extends SbitmapQueueContract {
    @Override
    SbitmapQueue create(SbitmapConfig config) {
        return new ShardedSbitmapQueue(config);
    }
}
