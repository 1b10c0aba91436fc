package io.hostwide.sbitmap;

class ShardedWakeUpTest extends WakeUpContract {
    @Override
    SbitmapQueue create(SbitmapConfig config) {
        return new ShardedSbitmapQueue(config);
    }
}
