package io.hostwide.sbitmap;

/** The contract suite on the reference itself: a failure here is a fault in the suite or the reference. */
class SynchronizedBitsetQueueTest extends SbitmapQueueContract {
    @Override
    SbitmapQueue create(SbitmapConfig config) {
        return new SynchronizedBitsetQueue(config);
    }
}
