package io.hostwide.sbitmap;

class LockedSbitmapQueueTest extends SbitmapQueueContract {
    @Override
    SbitmapQueue create(SbitmapConfig config) {
        return new LockedSbitmapQueue(config);
    }
}
