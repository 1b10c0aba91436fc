package io.hostwide.tcm.core;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The blocking backstore's I/O queue: bounded by its depth, and by nothing else. */
class BlkIoQueueTest {

    /**
     * Regression (issue 13): pending slots were taken strictly round-robin, and a slot still held by a command that
     * one I/O thread had not finished counted as "queue full". On a busy host one descheduled I/O thread did exactly
     * that while the other threads served many more commands, and iscsi-perf -m 16 got TASK SET FULL from a queue of
     * depth 128. Here one command blocks in its worker while many more pass it one at a time, far more than the
     * queue has slots: every one of them must be accepted.
     */
    @Test
    void aCommandStuckInItsWorkerNeverMakesTheQueueLookFull() throws Exception {
        BlkIoQueue q = new BlkIoQueue("slot-test", 2, 2);
        CountDownLatch stuckStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try {
            assertThat(q.offer(new CoreCommand(null), c -> {
                stuckStarted.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return true;
            }, c -> { })).isTrue();
            assertThat(stuckStarted.await(10, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < 32; i++) {
                CountDownLatch done = new CountDownLatch(1);
                assertThat(q.offer(new CoreCommand(null), c -> true, c -> done.countDown())).as("command %d", i).isTrue();
                assertThat(done.await(10, TimeUnit.SECONDS)).as("command %d completed", i).isTrue();
            }
        } finally {
            release.countDown();
            q.close();
        }
    }

    @Test
    void aQueueHoldingItsDepthRefusesTheNextCommand() throws Exception {
        BlkIoQueue q = new BlkIoQueue("full-test", 2, 2);
        CountDownLatch bothStarted = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        IoQueue.Work block = c -> {
            bothStarted.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return true;
        };
        try {
            assertThat(q.offer(new CoreCommand(null), block, c -> { })).isTrue();
            assertThat(q.offer(new CoreCommand(null), block, c -> { })).isTrue();
            assertThat(bothStarted.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(q.offer(new CoreCommand(null), c -> true, c -> { })).isFalse();
        } finally {
            release.countDown();
            q.close();
        }
    }
}
