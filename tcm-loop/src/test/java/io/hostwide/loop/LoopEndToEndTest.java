package io.hostwide.loop;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDevices;
import io.hostwide.blk.api.SubmitHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Block layer → midlayer → loop fabric → target core → RAM, and back: patterns written are read back intact. */
class LoopEndToEndTest {
    private static final int BS = 4096;

    /** Issue 5's data-integrity test: across schedulers, with host_tagset on and off. */
    @ParameterizedTest(name = "host_tagset={0} scheduler={1}")
    @CsvSource({"false, none", "true, none", "false, mq-deadline", "true, mq-deadline"})
    void patternsWrittenConcurrentlyReadBackIntact(boolean hostTagset, String scheduler) throws Exception {
        try (BlockDevice dev = BlockDevices.open("loop:nr_hw_queues=4,can_queue=16,cmd_per_lun=8,size_mb=8,host_tagset="
                + (hostTagset ? 1 : 0))) {
            dev.queue().setScheduler(scheduler);
            assertThat(dev.queue().schedulerName()).isEqualTo(scheduler);
            assertThat(dev.capacityBytes()).isEqualTo(8L << 20);
            assertThat(dev.queue().tagSet().hostTagset()).isEqualTo(hostTagset);
            int threads = 3;
            int blocksPerThread = 128;
            List<Thread> ts = new ArrayList<>();
            List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (int t = 0; t < threads; t++) {
                int job = t;
                ts.add(Thread.ofPlatform().start(() -> {
                    try {
                        writeThenVerify(dev, job, blocksPerThread);
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }));
            }
            for (Thread t : ts) {
                t.join(120_000);
            }
            assertThat(errors).isEmpty();
            // Regression: one driver task per command slot, not one per I/O (each thread issued 2 × 128 + 1). A
            // command lives in its request, so the slots are the driver tags with none and the scheduler's
            // requests (nr_requests per hardware queue, or shared with host_tagset) with mq-deadline.
            int perSet = "none".equals(scheduler) ? 16 : dev.queue().nrRequests();
            int slots = hostTagset ? perSet : 4 * perSet;
            assertThat(((HbaDisk) dev).hba().driverTasks()).as("loop tasks after %d I/Os", threads * 257)
                    .isLessThanOrEqualTo(slots);
        }
    }

    private static void writeThenVerify(BlockDevice dev, int job, int blocks) throws Exception {
        SubmitHandle h = dev.openHandle();
        long base = (long) job * blocks * BS;
        ByteBuffer[] bufs = new ByteBuffer[blocks];
        Io.Batch w = new Io.Batch();
        for (int i = 0; i < blocks; i++) {
            bufs[i] = ByteBuffer.allocate(BS);
            for (int j = 0; j < BS; j += 8) {
                bufs[i].putLong(j, (long) job << 48 | (long) i << 24 | j);
            }
            w.submit(h, ReqOp.WRITE, base + (long) i * BS, BS, bufs[i], i, 8);
        }
        w.await(60_000);
        assertThat(w.eachOnce(blocks)).isTrue();
        assertThat(w.status.values()).containsOnly(BlkStatus.OK);
        assertThat(Io.sync(h, ReqOp.FLUSH, 0, 0, null)).isEqualTo(BlkStatus.OK);
        Io.Batch r = new Io.Batch();
        ByteBuffer[] in = new ByteBuffer[blocks];
        for (int i = 0; i < blocks; i++) {
            in[i] = ByteBuffer.allocate(BS);
            r.submit(h, ReqOp.READ, base + (long) i * BS, BS, in[i], i, 8);
        }
        r.await(60_000);
        assertThat(r.eachOnce(blocks)).isTrue();
        assertThat(r.status.values()).containsOnly(BlkStatus.OK);
        for (int i = 0; i < blocks; i++) {
            assertThat(in[i].array()).as("job %d block %d", job, i).isEqualTo(bufs[i].array());
        }
    }

    @Test
    void largeTransferAndDiscardThroughUnmap() throws Exception {
        try (BlockDevice dev = BlockDevices.open("loop:size_mb=4")) {
            var info = ((HbaDisk) dev).disk().info();
            assertThat(info.lbpu()).as("a thin loop LUN advertises UNMAP").isTrue();
            assertThat(info.lbpws()).as("and WRITE SAME(16) with UNMAP").isTrue();
            SubmitHandle h = dev.openHandle();
            ByteBuffer big = ByteBuffer.allocate(256 * 1024);
            for (int i = 0; i < big.capacity(); i++) {
                big.put(i, (byte) (i * 31 + 7));
            }
            assertThat(Io.sync(h, ReqOp.WRITE, 1 << 20, big.capacity(), big)).isEqualTo(BlkStatus.OK);
            ByteBuffer back = ByteBuffer.allocate(big.capacity());
            assertThat(Io.sync(h, ReqOp.READ, 1 << 20, back.capacity(), back)).isEqualTo(BlkStatus.OK);
            assertThat(back.array()).isEqualTo(big.array());
            assertThat(Io.sync(h, ReqOp.DISCARD, 1 << 20, 65536, null)).isEqualTo(BlkStatus.OK);
            ByteBuffer z = ByteBuffer.allocate(65536);
            z.put(0, (byte) 1);
            assertThat(Io.sync(h, ReqOp.READ, 1 << 20, 65536, z)).isEqualTo(BlkStatus.OK);
            assertThat(z.array()).containsOnly((byte) 0);
        }
    }

    @Test
    void sixteenByteCdbsWithFuaCarryTheSameData() throws Exception {
        try (BlockDevice dev = BlockDevices.open("loop:size_mb=2,cdb_len=16,fua=1,nr_hw_queues=2")) {
            SubmitHandle h = dev.openHandle();
            ByteBuffer w = ByteBuffer.allocate(8192);
            for (int i = 0; i < w.capacity(); i++) {
                w.put(i, (byte) (i ^ 0x3C));
            }
            assertThat(Io.sync(h, ReqOp.WRITE, (2L << 20) - 8192, 8192, w)).isEqualTo(BlkStatus.OK);
            ByteBuffer r = ByteBuffer.allocate(8192);
            assertThat(Io.sync(h, ReqOp.READ, (2L << 20) - 8192, 8192, r)).isEqualTo(BlkStatus.OK);
            assertThat(r.array()).isEqualTo(w.array());
        }
        assertThatThrownBy(() -> BlockDevices.open("loop:cdb_len=12")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cdb_len");
    }

    @Test
    void badKnobsFailBeforeAnythingStartsNamingTheKnob() {
        assertThatThrownBy(() -> BlockDevices.open("loop:nr_hw_queues=0")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nr_hw_queues");
        assertThatThrownBy(() -> BlockDevices.open("loop:can_queue=abc")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("can_queue");
        assertThatThrownBy(() -> BlockDevices.open("loop:colour=blue")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("colour")
                .hasMessageContaining("(known: bypass_budget, can_queue, cdb_len, cmd_per_lun, delay_ns, disk, fua, ");
        assertThatThrownBy(() -> BlockDevices.open("loop:restart_policy=sometimes")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("restart_policy");
        assertThatThrownBy(() -> BlockDevices.open("loop:can_queue=16,cmd_per_lun=300")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'cmd_per_lun' (300) must not exceed can_queue (16)");
    }
}
