package io.hostwide.loop;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDevices;
import io.hostwide.blk.api.SubmitHandle;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 5: mq-deadline is changeable at run time. Switching a SCSI disk's scheduler back and forth while jobs write
 * and read through the midlayer (with its budget running out, so commands also wait and requeue there) loses no
 * request, completes each once, and the data reads back intact.
 */
class SchedulerSwitchThroughLoopTest {
    private static final int BS = 4096;
    private static final int JOBS = 2;
    private static final int BLOCKS = 256;

    @Test
    void switchingSchedulersUnderIoLosesNothingAndKeepsTheData() throws Exception {
        try (BlockDevice dev = BlockDevices.open("debug:dev_size_mb=4,submit_queues=2,max_queue=8,ndelay=20000")) {
            List<Throwable> errors = new CopyOnWriteArrayList<>();
            int switches = 0;
            for (ReqOp op : new ReqOp[] {ReqOp.WRITE, ReqOp.READ}) {
                Thread[] jobs = new Thread[JOBS];
                for (int j = 0; j < JOBS; j++) {
                    int job = j;
                    jobs[j] = Thread.ofPlatform().name("job" + j).start(() -> {
                        try {
                            runJob(dev, op, job);
                        } catch (Throwable e) {
                            errors.add(e);
                        }
                    });
                }
                while (jobs[0].isAlive() || jobs[1].isAlive()) {
                    dev.queue().setScheduler(switches++ % 2 == 0 ? "mq-deadline" : "none");
                    Thread.sleep(2);
                }
                for (Thread t : jobs) {
                    t.join(120_000);
                }
            }
            assertThat(errors).isEmpty();
            assertThat(switches).as("switches made while I/O ran").isGreaterThanOrEqualTo(2);
        }
    }

    private static void runJob(BlockDevice dev, ReqOp op, int job) throws Exception {
        SubmitHandle h = dev.openHandle();
        long base = (long) job * BLOCKS * BS;
        ByteBuffer[] bufs = new ByteBuffer[BLOCKS];
        Io.Batch b = new Io.Batch();
        for (int i = 0; i < BLOCKS; i++) {
            bufs[i] = ByteBuffer.allocate(BS);
            if (op == ReqOp.WRITE) {
                for (int k = 0; k < BS; k += 8) {
                    bufs[i].putLong(k, pattern(job, i, k));
                }
            }
            b.submit(h, op, base + (long) i * BS, BS, bufs[i], i, 16);
        }
        b.await(60_000);
        assertThat(b.eachOnce(BLOCKS)).as("job %d %s: each request completed once", job, op).isTrue();
        assertThat(b.status.values()).containsOnly(BlkStatus.OK);
        if (op == ReqOp.READ) {
            for (int i = 0; i < BLOCKS; i++) {
                for (int k = 0; k < BS; k += 8) {
                    if (bufs[i].getLong(k) != pattern(job, i, k)) {
                        throw new AssertionError("job " + job + " block " + i + " byte " + k + " differs");
                    }
                }
            }
        }
    }

    private static long pattern(int job, int block, int at) {
        return (long) job << 56 | (long) block << 24 | at | 0x5A00_0000_0000_0000L;
    }
}
