package io.hostwide.tcm;

import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.tmf.TmfFunction;
import io.hostwide.tcm.tmf.TmfResult;
import org.junit.jupiter.api.Test;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Aborts racing completions (issue #3): two submitters push SIMPLE and ORDERED commands through a backstore
 * served by I/O threads while a third thread fires ABORT TASK at recent tags and ABORT TASK SET now and then.
 * Every command must reach its fabric exactly once, GOOD or aborted; every TMF must answer exactly once; the
 * ordering counters and the task manager must be back at zero.
 */
class AbortRaceTest {
    static final int PER_SUBMITTER = 1500;

    @Test
    void everyCommandCompletesExactlyOnce() throws Exception {
        GatedBackstore g = new GatedBackstore(1 << 20, 512);
        g.hold = false;
        try (Harness h = new Harness(new DeviceAttributes().ioThreads(3).queueDepth(4096), g); GatedBackstore.Unblock unblock = g::unblock) {
            RecordingFabric f = new RecordingFabric();
            Session[] sessions = {
                    h.core.openSession(h.port, f, "iqn.2026-12.io.hostwide:r1", "iqn.2026-12.io.hostwide:r1,i,0x01"),
                    h.core.openSession(h.port, f, "iqn.2026-12.io.hostwide:r2", "iqn.2026-12.io.hostwide:r2,i,0x01")};
            ConcurrentLinkedQueue<long[]> recent = new ConcurrentLinkedQueue<>(); // {session index, tag}
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger tmfsAsked = new AtomicInteger();
            AtomicInteger tmfsAnswered = new AtomicInteger();
            CountDownLatch submitters = new CountDownLatch(2);
            for (int i = 0; i < 2; i++) {
                int si = i;
                Thread t = new Thread(() -> {
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    for (int n = 0; n < PER_SUBMITTER; n++) {
                        TaskAttribute a = rnd.nextInt(10) == 0 ? TaskAttribute.ORDERED : TaskAttribute.SIMPLE;
                        long tag = rnd.nextBoolean() ? f.read(sessions[si], n % 64, a) : f.write(sessions[si], n % 64, a);
                        recent.add(new long[] {si, tag});
                        if (recent.size() > 32) {
                            recent.poll();
                        }
                    }
                    submitters.countDown();
                });
                t.start();
            }
            Thread aborter = new Thread(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                while (!stop.get()) {
                    long[] victim = recent.peek();
                    if (victim == null) {
                        continue;
                    }
                    TmfFunction fn = rnd.nextInt(50) == 0 ? TmfFunction.ABORT_TASK_SET : TmfFunction.ABORT_TASK;
                    tmfsAsked.incrementAndGet();
                    h.core.taskManagement().request(sessions[(int) victim[0]], fn, LunAddress.encode(0), victim[1],
                            (TmfResult r) -> tmfsAnswered.incrementAndGet());
                }
            });
            aborter.start();
            assertThat(submitters.await(60, TimeUnit.SECONDS)).isTrue();
            stop.set(true);
            aborter.join();
            long total = 2L * PER_SUBMITTER;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while ((f.completions.size() < total || tmfsAnswered.get() < tmfsAsked.get()) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(f.completions).hasSize((int) total);
            assertThat(f.perTag.values()).allMatch(c -> c.get() == 1);
            assertThat(tmfsAnswered.get()).isEqualTo(tmfsAsked.get());
            assertThat(f.completions).allMatch(d -> d.aborted() ? d.suppressed() : d.status() == ScsiStatus.GOOD);
            assertThat(h.core.taskManagement().pending()).isZero();
            assertThat(h.core.taskSet(h.device).nonOrdered()).isZero();
            assertThat(h.core.taskSet(h.device).delayed()).isZero();
        }
    }
}
