package io.hostwide.scsi.mid;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.Request;
import io.hostwide.blk.Submitter;
import io.hostwide.blk.exec.ThreadPoolKblockd;
import io.hostwide.scsi.sd.SdCdb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seed 003's shape under real threads: jobs × iodepth far above queue_depth on several hardware queues, completions
 * from another thread, for both restart policies. Every request must complete exactly once (a lost wake-up shows
 * up as a request that never completes; the 60 s bound only catches a hang, it measures nothing).
 */
class NoLostRequestTest {
    private static final int JOBS = 4;
    private static final int PER_JOB = 800;
    private static final int IODEPTH = 6;

    @ParameterizedTest
    @EnumSource(RestartPolicy.class)
    void budgetContentionNeverLosesARequest(RestartPolicy p) throws Exception {
        ScsiHostTemplate t = new ScsiHostTemplate().canQueue(32).cmdPerLun(3).nrHwQueues(4).nrCtx(4).restartPolicy(p);
        ConcurrentLinkedQueue<ScsiCmnd> toComplete = new ConcurrentLinkedQueue<>();
        LowLevelDriver lld = new LowLevelDriver() {
            @Override
            public String name() {
                return "async";
            }

            @Override
            public int queueCommand(ScsiCmnd cmd) {
                toComplete.add(cmd);
                return OK;
            }
        };
        try (ThreadPoolKblockd kblockd = new ThreadPoolKblockd("test-kblockd", 2)) {
            ScsiHost host = new ScsiHost(t, lld, kblockd);
            ScsiDevice d = host.addDevice(host.allocDevice(host.target(0, 0), 0));
            d.attach(readOnlyDriver(d));
            AtomicIntegerArray seen = new AtomicIntegerArray(JOBS * PER_JOB);
            CountDownLatch all = new CountDownLatch(JOBS * PER_JOB);
            Thread completer = Thread.ofPlatform().daemon().start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    ScsiCmnd c = toComplete.poll();
                    if (c == null) {
                        Thread.onSpinWait();
                        continue;
                    }
                    c.doneGood(0);
                }
            });
            Thread[] jobs = new Thread[JOBS];
            for (int j = 0; j < JOBS; j++) {
                int job = j;
                jobs[j] = Thread.ofPlatform().start(() -> runJob(d.queue().submitter(job), job, seen, all));
            }
            boolean done = all.await(150, TimeUnit.SECONDS); // a lost request hangs forever; a loaded 2-core CI box is merely slow
            completer.interrupt();
            for (Thread j : jobs) {
                j.join(5000);
            }
            assertThat(done).as("all requests completed (budget=%d, restarts=%d, left=%d, lld=%d) %s", d.busy(), d.restarts(),
                    all.getCount(), toComplete.size(), d.queue().snapshot()).isTrue();
            for (int i = 0; i < seen.length(); i++) {
                assertThat(seen.get(i)).as("request %d completions", i).isEqualTo(1);
            }
            assertThat(d.busy()).isZero();
            host.close();
        }
    }

    private static void runJob(Submitter s, int job, AtomicIntegerArray seen, CountDownLatch all) {
        ByteBuffer buf = ByteBuffer.allocate(512);
        AtomicInteger outstanding = new AtomicInteger();
        for (int i = 0; i < PER_JOB; i++) {
            while (outstanding.get() >= IODEPTH) {
                Thread.onSpinWait();
            }
            outstanding.incrementAndGet();
            s.submit(ReqOp.READ, 512L * i, 512, buf, (ud, st) -> {
                if (st == BlkStatus.OK) {
                    seen.incrementAndGet((int) ud);
                }
                outstanding.decrementAndGet();
                all.countDown();
            }, (long) job * PER_JOB + i);
        }
    }

    static UpperDriver readOnlyDriver(ScsiDevice d) {
        d.info = new DeviceInfo(0, "HOSTWIDE", "FAKE", "1", false, 512, 1 << 20, false,
                0, 0, 0, 0, 0, 0, false, false, 0, true);
        return new UpperDriver() {
            @Override
            public BlkStatus initCommand(ScsiCmnd cmd, Request rq) {
                byte[] c = cmd.cdb();
                d.prepare(cmd, c, SdCdb.readWrite(c, false, rq.offset() / 512, rq.length() / 512, false, false),
                        ScsiCmnd.DIR_FROM_DEVICE, rq.buffer(), 0, rq.length());
                return BlkStatus.OK;
            }

            @Override
            public BlkStatus done(ScsiCmnd cmd) {
                return cmd.result() == 0 ? BlkStatus.OK : BlkStatus.IOERR;
            }
        };
    }
}
