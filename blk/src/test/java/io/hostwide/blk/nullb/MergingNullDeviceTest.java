package io.hostwide.blk.nullb;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.IoCallback;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.blk.exec.ManualKblockd;
import io.hostwide.blk.exec.ThreadPoolKblockd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Merging end to end on a memory-backed null device: the data of every merged bio
 * lands in (and comes from) its own buffer, every callback runs once, and
 * {@code nomerges=2} turns it all off. Scheduler switches under load lose nothing.
 */
class MergingNullDeviceTest {
    private static final int BLK = 4096;
    /** Submission order: merges as front, back, front, new, back + bridge (5 merges, one request). */
    private static final int[] ORDER = {2, 1, 3, 0, 5, 4};

    private static ByteBuffer pattern(int blk) {
        ByteBuffer b = ByteBuffer.allocate(BLK);
        for (int i = 0; i < BLK; i++) {
            b.put(i, (byte) (blk * 31 + i));
        }
        return b;
    }

    /**
     * The plug merges with its most recent request only: 2, 1 (front), 3 (back),
     * 0 (front), then 5 starts a new request and 4 front-merges into it: 4 merges.
     * mq-deadline's insert merge then joins the two requests (a 5th).
     */
    @ParameterizedTest(name = "scheduler={0} nomerges={1}")
    @CsvSource({"mq-deadline,0,5,5", "mq-deadline,2,0,0", "none,0,4,5", "none,2,0,0"})
    void mergedWritesAndReadsMoveTheRightBytes(String sched, int nomerges, int writeMerges, int readMerges) {
        ManualKblockd kb = new ManualKblockd();
        NullDevice dev = NullDevice.create(NullConfig.parse("size=8,memory_backed=1,irqmode=0,scheduler=" + sched
                + ",nomerges=" + nomerges, "merge-" + sched + nomerges), kb);
        SubmitHandle h = dev.openHandle();
        AtomicIntegerArray calls = new AtomicIntegerArray(12);
        AtomicInteger errors = new AtomicInteger();
        IoCallback cb = (ud, st) -> {
            calls.incrementAndGet((int) ud);
            if (st != BlkStatus.OK) {
                errors.incrementAndGet();
            }
        };
        // With a scheduler, submissions wait in it until kblockd runs; without, the plug holds them.
        h.startPlug();
        for (int blk : ORDER) {
            h.write((long) blk * BLK, BLK, pattern(blk), cb, blk);
        }
        h.finishPlug();
        kb.runUntilIdle(1_000_000_000L);
        ByteBuffer[] back = new ByteBuffer[6];
        h.startPlug();
        for (int blk = 0; blk < 6; blk++) {
            back[blk] = ByteBuffer.allocate(BLK);
            h.read((long) blk * BLK, BLK, back[blk], cb, 6 + blk);
        }
        h.finishPlug();
        kb.runUntilIdle(1_000_000_000L);
        for (int i = 0; i < 12; i++) {
            assertThat(calls.get(i)).as("callback of I/O %d", i).isEqualTo(1);
        }
        assertThat(errors.get()).isZero();
        for (int blk = 0; blk < 6; blk++) {
            assertThat(back[blk]).as("block %d", blk).isEqualTo(pattern(blk));
        }
        var snap = dev.queue().snapshot();
        assertThat(snap.writeMerges()).isEqualTo(writeMerges);
        assertThat(snap.readMerges()).isEqualTo(readMerges);
        assertThat(snap.nomerges()).isEqualTo(nomerges);
        h.close();
        dev.close();
        kb.close();
    }

    @Test
    void badKnobsAreRejectedWithTheirNames() {
        assertThatThrownBy(() -> NullConfig.parse("scheduler=bfq", "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("scheduler");
        assertThatThrownBy(() -> NullConfig.parse("nomerges=3", "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nomerges");
        assertThatThrownBy(() -> NullConfig.parse("rotational=2", "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rotational");
        NullConfig c = NullConfig.parse("scheduler=mq-deadline,rotational=1", "x");
        assertThat(c.scheduler()).isEqualTo("mq-deadline");
        assertThat(c.rotational()).isTrue();
    }

    @Test
    void schedulerSwitchUnderLoadLosesNothing() throws Exception {
        ThreadPoolKblockd kb = new ThreadPoolKblockd("switch-kblockd", 1);
        NullDevice dev = NullDevice.create(NullConfig.parse("submit_queues=2,hw_queue_depth=16,completion_nsec=20000",
                "switch"), kb);
        int threads = 2;
        int perThread = 4000;
        AtomicIntegerArray calls = new AtomicIntegerArray(threads * perThread);
        AtomicInteger failed = new AtomicInteger();
        AtomicReference<Throwable> crash = new AtomicReference<>();
        Thread[] jobs = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int base = t * perThread;
            jobs[t] = new Thread(() -> {
                try (SubmitHandle h = dev.openHandle()) {
                    ByteBuffer buf = ByteBuffer.allocate(BLK);
                    IoCallback cb = (ud, st) -> {
                        calls.incrementAndGet((int) ud);
                        if (st != BlkStatus.OK) {
                            failed.incrementAndGet();
                        }
                    };
                    for (int i = 0; i < perThread; i++) {
                        // Sequential runs so both merge paths are exercised across switches.
                        h.read((long) (base + i) * BLK, BLK, buf, cb, base + i);
                    }
                } catch (Throwable e) {
                    crash.set(e);
                }
            }, "job" + t);
            jobs[t].start();
        }
        int switches = 0;
        while (jobs[0].isAlive() || jobs[1].isAlive()) {
            dev.queue().setScheduler(switches % 2 == 0 ? "mq-deadline" : "none");
            switches++;
            Thread.sleep(2);
        }
        for (Thread j : jobs) {
            j.join(TimeUnit.SECONDS.toMillis(60));
        }
        dev.close();   // waits for outstanding I/O
        kb.close();
        assertThat(crash.get()).isNull();
        assertThat(switches).isPositive();
        assertThat(failed.get()).isZero();
        for (int i = 0; i < calls.length(); i++) {
            assertThat(calls.get(i)).as("callback of I/O %d", i).isEqualTo(1);
        }
    }
}
