package io.hostwide.scsi.mid;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Completion signal of one internal command ({@code scsi_execute_cmd}'s wait). */
final class InternalWaiter {
    private final CountDownLatch latch = new CountDownLatch(1);

    void signal() {
        latch.countDown();
    }

    boolean await(long millis) {
        try {
            return latch.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
