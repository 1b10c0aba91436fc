package io.hostwide.loop;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.IoCallback;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDevices;
import io.hostwide.blk.api.SubmitHandle;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Regression: with request merging in the block layer, a merged request carries several buffers; the disk driver
 * must move every segment, not just the first (it bounces them through one transfer). Sequential plugged writes and
 * reads through loop → target core must read back exactly, and merges must really have happened.
 */
class MergedIoTest {
    private static final int BS = 4096;
    private static final int N = 64;

    @ParameterizedTest
    @ValueSource(strings = {"none", "mq-deadline"})
    void mergedSequentialWritesAndReadsKeepEverySegment(String scheduler) throws Exception {
        try (BlockDevice dev = BlockDevices.open("loop:size_mb=8,can_queue=4,cmd_per_lun=4")) {
            dev.queue().setScheduler(scheduler);
            SubmitHandle h = dev.openHandle();
            ByteBuffer[] out = new ByteBuffer[N];
            for (int i = 0; i < N; i++) {
                out[i] = ByteBuffer.allocate(BS);
                for (int j = 0; j < BS; j += 8) {
                    out[i].putLong(j, 0x5A00_0000_0000_0000L | (long) i << 20 | j);
                }
            }
            run(h, true, out);
            ByteBuffer[] in = new ByteBuffer[N];
            for (int i = 0; i < N; i++) {
                in[i] = ByteBuffer.allocate(BS);
            }
            run(h, false, in);
            for (int i = 0; i < N; i++) {
                assertThat(in[i].array()).as("block %d", i).isEqualTo(out[i].array());
            }
            assertThat(dev.queue().merges()).as("the plugged sequential I/O merged").isPositive();
        }
    }

    private static void run(SubmitHandle h, boolean write, ByteBuffer[] bufs) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(bufs.length);
        AtomicInteger failed = new AtomicInteger();
        IoCallback cb = (slot, status) -> {
            if (status != BlkStatus.OK) {
                failed.incrementAndGet();
            }
            done.countDown();
        };
        h.startPlug();
        for (int i = 0; i < bufs.length; i++) {
            if (write) {
                h.write((long) i * BS, BS, bufs[i], cb, i);
            } else {
                h.read((long) i * BS, BS, bufs[i], cb, i);
            }
        }
        h.finishPlug();
        assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(failed.get()).isZero();
    }
}
