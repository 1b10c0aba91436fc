package io.hostwide.blk.nullb;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.IoCallback;
import io.hostwide.blk.TagSet;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.blk.exec.ThreadPoolKblockd;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * blktests block/035 shape: two null devices share one host-wide tag set, one
 * completing in 1 ms and one in 100 ms, both driven well past the tag depth. The
 * fast device must not be starved by the slow one holding tags: over the same
 * window it completes at least as much (only the direction is asserted).
 */
class SharedTagsStarvationTest {

    @Test
    void fastDeviceIsNotStarvedBySlowOne() throws Exception {
        try (ThreadPoolKblockd kb = new ThreadPoolKblockd("b035", 2)) {
            NullConfig fastCfg = NullConfig.parse("name=fast,submit_queues=2,hw_queue_depth=32,shared_tag_bitmap=1,"
                    + "irqmode=2,completion_nsec=1000000,size=16", "fast");
            NullConfig slowCfg = NullConfig.parse("name=slow,submit_queues=2,hw_queue_depth=32,shared_tag_bitmap=1,"
                    + "irqmode=2,completion_nsec=100000000,size=16", "slow");
            TagSet shared = NullDevice.newTagSet(fastCfg, kb);
            NullDevice fast = NullDevice.createOn(fastCfg, shared);
            NullDevice slow = NullDevice.createOn(slowCfg, shared);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong fastDone = new AtomicLong();
            AtomicLong slowDone = new AtomicLong();
            List<Thread> jobs = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                jobs.add(job(slow.openHandle(), slowDone, stop));
                jobs.add(job(fast.openHandle(), fastDone, stop));
            }
            jobs.forEach(Thread::start);
            Thread.sleep(1500);
            stop.set(true);
            for (Thread j : jobs) {
                j.join(TimeUnit.SECONDS.toMillis(10));
                assertThat(j.isAlive()).isFalse();
            }
            assertThat(fast.queue().snapshot().hctxs().get(0).flags()).startsWith("TAG_QUEUE_SHARED|TAG_HCTX_SHARED");
            System.out.printf("block/035 shape: fast=%d slow=%d completions in 1.5 s%n", fastDone.get(), slowDone.get());
            assertThat(fastDone.get()).as("fast %d vs slow %d", fastDone.get(), slowDone.get())
                    .isPositive().isGreaterThanOrEqualTo(slowDone.get());
            fast.close();
            slow.close();
            shared.close();
        }
    }

    /** A job thread keeping up to 32 reads in flight (more than its fair share of tags). */
    private static Thread job(SubmitHandle h, AtomicLong done, AtomicBoolean stop) {
        return new Thread(() -> {
            Semaphore inflight = new Semaphore(32);
            IoCallback cb = (ud, st) -> {
                if (st == BlkStatus.OK) {
                    done.incrementAndGet();
                }
                inflight.release();
            };
            long off = 0;
            while (!stop.get()) {
                try {
                    if (!inflight.tryAcquire(10, TimeUnit.MILLISECONDS)) {
                        continue;
                    }
                } catch (InterruptedException e) {
                    return;
                }
                h.read(off, 4096, BUF.duplicate(), cb, 0);
                off = (off + 4096) % (8L << 20);
            }
            inflight.acquireUninterruptibly(32);   // drain
        });
    }

    private static final java.nio.ByteBuffer BUF = java.nio.ByteBuffer.allocate(4096);
}
