package io.hostwide.blk.nullb;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.IoCallback;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDevices;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.blk.exec.ManualKblockd;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A memory-backed null device returns what was written (null_blk memory_backed=1). */
class MemoryBackedTest {

    @ParameterizedTest(name = "irqmode={0}")
    @ValueSource(ints = {0, 1, 2})
    void randomWritesReadBack(int irqmode) {
        ManualKblockd kb = new ManualKblockd();
        long size = 8L << 20;
        NullConfig cfg = NullConfig.parse("size=8,memory_backed=1,discard=1,submit_queues=2,irqmode=" + irqmode
                + ",completion_nsec=5000", "mem" + irqmode);
        NullDevice dev = NullDevice.create(cfg, kb);
        SubmitHandle h = dev.openHandle();
        Random rnd = new Random(42 + irqmode);
        byte[] shadow = new byte[(int) size];
        AtomicReference<BlkStatus> last = new AtomicReference<>();
        IoCallback cb = (ud, st) -> last.set(st);
        for (int i = 0; i < 300; i++) {
            int blocks = 1 + rnd.nextInt(40);
            int len = blocks * 512;
            long off = (long) rnd.nextInt((int) (size / 512) - blocks) * 512;
            int op = rnd.nextInt(10);
            ByteBuffer buf = ByteBuffer.allocate(len + 7);
            buf.position(7);   // data lives at the buffer's position
            if (op < 5) {
                byte[] data = new byte[len];
                rnd.nextBytes(data);
                buf.put(7, data);
                System.arraycopy(data, 0, shadow, (int) off, len);
                run(kb, () -> h.write(off, len, buf, cb, 0), last);
            } else if (op < 9) {
                run(kb, () -> h.read(off, len, buf, cb, 0), last);
                byte[] got = new byte[len];
                buf.get(7, got);
                byte[] want = java.util.Arrays.copyOfRange(shadow, (int) off, (int) off + len);
                assertThat(got).as("read %d bytes at %d", len, off).isEqualTo(want);
                assertThat(buf.position()).isEqualTo(7);
            } else {
                java.util.Arrays.fill(shadow, (int) off, (int) off + len, (byte) 0);
                run(kb, () -> h.discard(off, len, cb, 0), last);
            }
        }
        assertThat(dev.pagesAllocated()).isPositive();
        dev.close();
    }

    private static void run(ManualKblockd kb, Runnable submit, AtomicReference<BlkStatus> last) {
        last.set(null);
        submit.run();
        kb.advance(10_000);
        assertThat(last.get()).isEqualTo(BlkStatus.OK);
    }

    @Test
    void badArgumentsAreRejectedBeforeQueueing() {
        ManualKblockd kb = new ManualKblockd();
        NullDevice dev = NullDevice.create(NullConfig.parse("size=1,irqmode=0", "args"), kb);
        SubmitHandle h = dev.openHandle();
        IoCallback cb = (ud, st) -> { };
        ByteBuffer buf = ByteBuffer.allocate(4096);
        assertThatThrownBy(() -> h.read(1, 512, buf, cb, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("offset");
        assertThatThrownBy(() -> h.read(0, 100, buf, cb, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length");
        assertThatThrownBy(() -> h.read((1 << 20) - 512, 1024, buf, cb, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("capacity");
        assertThatThrownBy(() -> h.write(0, 8192, buf, cb, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("buffer");
        assertThatThrownBy(() -> h.read(0, 512, buf.asReadOnlyBuffer(), cb, 0)).isInstanceOf(IllegalArgumentException.class);
        AtomicReference<BlkStatus> st = new AtomicReference<>();
        h.discard(0, 512, (ud, s) -> st.set(s), 0);
        assertThat(st.get()).as("discard without discard=1").isEqualTo(BlkStatus.NOTSUPP);
        assertThat(dev.queue().allocatedRequests()).isZero();
        dev.close();
    }

    @Test
    void opensByNameOnTheRuntimeExecutor() throws Exception {
        try (BlockDevice dev = BlockDevices.open("null:size=4,memory_backed=1,submit_queues=2,completion_nsec=20000")) {
            assertThat(dev.capacityBytes()).isEqualTo(4L << 20);
            assertThat(dev.logicalBlockSize()).isEqualTo(512);
            SubmitHandle h = dev.openHandle();
            ByteBuffer w = ByteBuffer.allocateDirect(4096);
            for (int i = 0; i < 4096; i++) {
                w.put(i, (byte) i);
            }
            CountDownLatch done = new CountDownLatch(2);
            AtomicReference<BlkStatus> bad = new AtomicReference<>();
            IoCallback cb = (ud, s) -> {
                if (s != BlkStatus.OK) {
                    bad.set(s);
                }
                done.countDown();
            };
            h.write(8192, 4096, w, cb, 1);
            h.flush(cb, 2);
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            ByteBuffer r = ByteBuffer.allocateDirect(4096);
            CountDownLatch read = new CountDownLatch(1);
            h.read(8192, 4096, r, (ud, s) -> read.countDown(), 3);
            assertThat(read.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(bad.get()).isNull();
            assertThat(r).isEqualTo(w);
        }
    }
}
