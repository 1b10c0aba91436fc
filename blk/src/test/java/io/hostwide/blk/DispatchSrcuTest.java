package io.hostwide.blk;

import io.hostwide.blk.exec.ManualKblockd;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hctx dispatch read side with one counter pair per slot (queue runs, and each ctx's submitter):
 * {@code synchronizeDispatch} (quiesce, timeouts) must wait for a dispatcher in any slot, and after it returns
 * no dispatcher may still be working without having seen a flag set before it (the quiesce protocol).
 */
class DispatchSrcuTest {

    /**
     * Waits until a grace period on {@code h} has found a dispatcher inside and is waiting for it: a positive
     * signal that the code under test was reached, where a fixed window would pass on a machine too loaded to
     * schedule the waiting thread at all.
     */
    static void awaitGraceWait(Hctx h, long graceWaitsBefore) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (h.graceWaits.get() == graceWaitsBefore) {
            assertThat(System.nanoTime() - deadline).as("no grace period waited for a dispatcher in 10 s").isNegative();
            Thread.sleep(1);
        }
    }

    private static TagSet newSet(int nrHw, int nrCtx, BlkMqOps ops, ManualKblockd kb) {
        return new TagSet(new TagSetConfig(nrHw, 16, 0, 0, 0, nrCtx), ops, kb);
    }

    @Test
    void synchronizeWaitsForADispatcherInEverySlot() throws Exception {
        ManualKblockd kb = new ManualKblockd();
        TagSet set = newSet(1, 3, new HoldingDriver(), kb);
        RequestQueue q = set.addQueue("q");
        Hctx h = q.hctx(0);
        assertThat(h.nrCtx()).isEqualTo(3);
        int[] slots = {Hctx.RUN_SLOT, Hctx.ctxSlot(q.ctx(0)), Hctx.ctxSlot(q.ctx(1)), Hctx.ctxSlot(q.ctx(2))};
        for (int slot : slots) {
            int token = h.enterDispatch(slot);
            long waits = h.graceWaits.get();
            Thread sync = new Thread(h::synchronizeDispatch, "sync");
            sync.start();
            awaitGraceWait(h, waits);
            assertThat(sync.isAlive()).as("grace period ended with a dispatcher in slot " + slot).isTrue();
            h.exitDispatch(token);
            sync.join(10_000);
            assertThat(sync.isAlive()).as("grace period after slot " + slot + " left").isFalse();
        }
        q.close();
        set.close();
    }

    /**
     * Readers enter a random slot, read the flag and, if clear, work; the writer sets the flag, synchronizes,
     * and then no reader may be working: each one working either entered before the writer read its slot
     * (and was waited for) or saw the flag.
     */
    @Test
    void noDispatcherWorksUnflaggedAfterTheGracePeriod() throws Exception {
        ManualKblockd kb = new ManualKblockd();
        TagSet set = newSet(1, 4, new HoldingDriver(), kb);
        RequestQueue q = set.addQueue("q");
        Hctx h = q.hctx(0);
        AtomicBoolean flag = new AtomicBoolean();
        AtomicInteger working = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        Thread[] readers = new Thread[3];
        for (int r = 0; r < readers.length; r++) {
            readers[r] = new Thread(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                while (!stop.get()) {
                    int token = h.enterDispatch(rnd.nextInt(h.nrCtx() + 1));
                    if (!flag.get()) {
                        working.incrementAndGet();
                        Thread.onSpinWait();
                        working.decrementAndGet();
                    }
                    h.exitDispatch(token);
                }
            });
            readers[r].start();
        }
        try {
            for (int i = 0; i < 2000; i++) {
                flag.set(true);
                h.synchronizeDispatch();
                assertThat(working.get()).as("round " + i).isZero();
                flag.set(false);
            }
        } finally {
            stop.set(true);
            for (Thread t : readers) {
                t.join(10_000);
            }
        }
        q.close();
        set.close();
    }

    /** End to end: quiesce returns only after a submitter's direct issue (its own slot) has left queue_rq. */
    @Test
    void quiesceWaitsForADirectIssueInProgress() throws Exception {
        ManualKblockd kb = new ManualKblockd();
        CountDownLatch inQueueRq = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        HoldingDriver drv = new HoldingDriver();
        drv.script = rq -> {
            if (rq.userData == 1) {
                inQueueRq.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return BlkStatus.OK;
        };
        TagSet set = newSet(1, 2, drv, kb);
        RequestQueue q = set.addQueue("q");
        Counting cb = new Counting();
        Thread submitter = new Thread(() -> q.submitter(1).submit(ReqOp.READ, 0, 512, null, cb, 1));
        submitter.start();
        assertThat(inQueueRq.await(10, TimeUnit.SECONDS)).isTrue();
        long waits = q.hctx(0).graceWaits.get();
        Thread quiescer = new Thread(q::quiesce, "quiesce");
        quiescer.start();
        awaitGraceWait(q.hctx(0), waits);
        assertThat(quiescer.isAlive()).as("quiesce returned during queue_rq").isTrue();
        release.countDown();
        quiescer.join(10_000);
        submitter.join(10_000);
        assertThat(quiescer.isAlive()).isFalse();
        // Quiesced: neither submitter's direct issue reaches the driver.
        q.submitter(0).submit(ReqOp.READ, 0, 512, null, cb, 2);
        q.submitter(1).submit(ReqOp.READ, 0, 512, null, cb, 3);
        kb.runDue();
        assertThat(drv.held).hasSize(1);
        q.unquiesce();
        kb.runDue();
        assertThat(drv.held).hasSize(3);
        drv.completeAll(BlkStatus.OK);
        assertThat(cb.eachExactlyOnce(3)).isTrue();
        q.close();
        set.close();
    }
}
