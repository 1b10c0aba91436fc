package io.hostwide.blk;

import io.hostwide.blk.exec.ManualKblockd;
import io.hostwide.sbitmap.SbitmapDump;
import io.hostwide.sbitmap.SbitmapQueue;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Tag waiters are exclusive (blk_mq_get_tag's sbitmap_prepare_to_wait): one free wakes one waiter. A woken
 * waiter whose queue is over its fair share (hctx_may_queue) cannot use the free bit; it must hand the
 * wake-up on rather than strand a waiter of a queue under its share.
 */
class ExclusiveTagWaitTest {
    private static final IoCallback IGNORE = (ud, st) -> { };
    private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(20);

    @Test
    void aWokenWaiterOverItsShareDoesNotStrandOneUnderIt() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), this::overShareWaiterPassesTheWakeUpOn);
    }

    private void overShareWaiterPassesTheWakeUpOn() throws InterruptedException {
        ManualKblockd kb = new ManualKblockd();
        HoldingDriver drv = new HoldingDriver();
        // One hw queue, 8 tags shared by three queues (TAG_QUEUE_SHARED), scheduler none.
        TagSet set = new TagSet(new TagSetConfig(1, 8, 0, 0, 0, 1), drv, kb);
        RequestQueue a = set.addQueue("a");
        RequestQueue b = set.addQueue("b");
        RequestQueue c = set.addQueue("c");
        Submitter sa = a.submitter(0);
        Submitter sb = b.submitter(0);
        Submitter sc = c.submitter(0);
        for (int i = 0; i < 4; i++) {
            assertThat(sa.trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)).isTrue();
            assertThat(sc.trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)).isTrue();
        }
        SbitmapQueue bt = set.tags(0).bitmapTags;
        assertThat(bt.busy()).isEqualTo(8);

        // a is at its share (4 of max(ceil(8/2), 4)): it waits on the fair share, first on wait queue 0.
        Thread ta = Thread.ofPlatform().name("submit-a").start(
                () -> sa.submit(ReqOp.READ, 0, 512, null, IGNORE, 1));
        assertThat(waitFor(() -> bt.dump().wsActive() == 1)).isTrue();
        // b becomes the third user (share still 4, wake batch 1) with nothing in flight: it waits for a bit,
        // behind a on the same queue.
        Thread tb = Thread.ofPlatform().name("submit-b").start(
                () -> sb.submit(ReqOp.READ, 0, 512, null, IGNORE, 2));
        assertThat(waitFor(() -> bt.dump().wsActive() == 2)).isTrue();
        SbitmapDump d = bt.dump();
        assertThat(set.tags(0).activeQueues()).isEqualTo(3);
        assertThat(d.wakeBatch()).isEqualTo(1);
        assertThat(d.ws().get(d.wakeIndex())).as("a and b on the next queue to wake, a first").isEqualTo(2);

        // One of c's requests completes: one bit, one wake-up, which goes to a. a is still over its share;
        // unless it passes the wake-up on, b sleeps on a free bit with nothing left to wake it.
        completeOneOf(drv, c);
        assertThat(waitFor(() -> drv.heldFor(b) == 1)).as("b got the freed tag").isTrue();
        tb.join();
        assertThat(drv.heldFor(a)).isEqualTo(4);
        assertThat(waitFor(() -> bt.dump().wsActive() == 1)).as("a waits again").isTrue();
        assertThat(ta.isAlive()).isTrue();

        // a's own completions bring it under its share and wake it.
        completeOneOf(drv, a);
        assertThat(waitFor(() -> drv.heldFor(a) == 4 && !ta.isAlive())).isTrue();
        ta.join();
        drv.completeAll(BlkStatus.OK);
        assertThat(bt.dump().wsActive()).isZero();
        a.close();
        b.close();
        c.close();
        set.close();
    }

    @Test
    void anInterruptedTagWaiterEndsWithAgainAndLeavesNoWaiter() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), this::interruptedWaiter);
    }

    private void interruptedWaiter() throws InterruptedException {
        ManualKblockd kb = new ManualKblockd();
        HoldingDriver drv = new HoldingDriver();
        TagSet set = new TagSet(new TagSetConfig(1, 4, 0, 0, 0, 1), drv, kb);
        RequestQueue q = set.addQueue("q");
        Submitter s = q.submitter(0);
        for (int i = 0; i < 4; i++) {
            assertThat(s.trySubmit(ReqOp.READ, 0, 512, null, IGNORE, 0)).isTrue();
        }
        SbitmapQueue bt = set.tags(0).bitmapTags;
        Counting cb = new Counting();
        AtomicBoolean flagKept = new AtomicBoolean();
        Thread t = Thread.ofPlatform().name("submit").start(() -> {
            q.submitter(0).submit(ReqOp.READ, 0, 512, null, cb, 7);
            flagKept.set(Thread.currentThread().isInterrupted());
        });
        assertThat(waitFor(() -> bt.dump().wsActive() == 1)).isTrue();
        t.interrupt();
        t.join();
        assertThat(cb.status(BlkStatus.AGAIN)).isEqualTo(1);
        assertThat(flagKept.get()).as("interrupt status left set").isTrue();
        assertThat(bt.dump().wsActive()).isZero();
        assertThat(drv.completeAll(BlkStatus.OK)).isEqualTo(4);
        assertThat(q.allocatedRequests()).isZero();
        q.close();
        set.close();
    }

    private static void completeOneOf(HoldingDriver drv, RequestQueue q) {
        for (Request rq : drv.held) {
            if (rq.queue() == q && drv.held.remove(rq)) {
                assertThat(rq.complete(BlkStatus.OK)).isTrue();
                return;
            }
        }
        throw new AssertionError("nothing of " + q.name() + " in flight");
    }

    private static boolean waitFor(BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + LIMIT_NANOS;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(1);
        }
        return true;
    }
}
