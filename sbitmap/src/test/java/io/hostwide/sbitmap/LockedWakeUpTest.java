package io.hostwide.sbitmap;

class LockedWakeUpTest extends WakeUpContract {
    @Override
    SbitmapQueue create(SbitmapConfig config) {
        return new LockedSbitmapQueue(config);
    }
}
