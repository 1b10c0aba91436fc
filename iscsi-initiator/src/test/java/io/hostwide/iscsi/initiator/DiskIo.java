package io.hostwide.iscsi.initiator;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.SubmitHandle;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Test I/O over a block device: batches at a queue depth with exactly-once accounting, and write/read-back checks. */
final class DiskIo {
    private DiskIo() {}

    static BlkStatus sync(SubmitHandle h, ReqOp op, long offset, int length, ByteBuffer buf) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        BlkStatus[] st = new BlkStatus[1];
        h.submit(op, offset, length, buf, (ud, s) -> {
            st[0] = s;
            done.countDown();
        }, 0);
        if (!done.await(60, TimeUnit.SECONDS)) {
            throw new AssertionError(op + " at " + offset + " never completed");
        }
        return st[0];
    }

    /**
     * Writes {@code count} random buffers of {@code size} bytes at consecutive offsets from {@code base} with up to
     * {@code depth} in flight, reads them back at the same depth, and asserts every request completed once with OK
     * and the data matches.
     */
    static void writeReadVerify(BlockDevice dev, long base, int size, int count, int depth, long seed)
            throws InterruptedException {
        Random rnd = new Random(seed);
        ByteBuffer[] out = new ByteBuffer[count];
        ByteBuffer[] in = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            byte[] b = new byte[size];
            rnd.nextBytes(b);
            out[i] = ByteBuffer.wrap(b);
            in[i] = ByteBuffer.allocate(size);
        }
        try (SubmitHandle h = dev.openHandle()) {
            run(h, ReqOp.WRITE, base, size, out, depth);
            run(h, ReqOp.READ, base, size, in, depth);
        }
        for (int i = 0; i < count; i++) {
            assertThat(in[i].array()).as("request %d of %d bytes at depth %d", i, size, depth)
                    .isEqualTo(out[i].array());
        }
    }

    private static void run(SubmitHandle h, ReqOp op, long base, int size, ByteBuffer[] bufs, int depth)
            throws InterruptedException {
        ConcurrentHashMap<Long, AtomicInteger> seen = new ConcurrentHashMap<>();
        ConcurrentHashMap<Long, BlkStatus> status = new ConcurrentHashMap<>();
        AtomicInteger outstanding = new AtomicInteger();
        for (int i = 0; i < bufs.length; i++) {
            long end = System.nanoTime() + 60_000_000_000L;
            while (outstanding.get() >= depth) {
                if (System.nanoTime() > end) {
                    throw new AssertionError(op + ": requests stuck at depth " + depth);
                }
                Thread.onSpinWait();
            }
            outstanding.incrementAndGet();
            h.submit(op, base + (long) i * size, size, bufs[i], (ud, s) -> {
                seen.computeIfAbsent(ud, k -> new AtomicInteger()).incrementAndGet();
                status.put(ud, s);
                outstanding.decrementAndGet();
            }, i);
        }
        long end = System.nanoTime() + 60_000_000_000L;
        while (outstanding.get() > 0) {
            if (System.nanoTime() > end) {
                throw new AssertionError(op + ": " + outstanding.get() + " requests never completed");
            }
            Thread.sleep(1);
        }
        assertThat(seen).hasSize(bufs.length);
        assertThat(seen.values()).allMatch(a -> a.get() == 1);
        assertThat(status.values()).as(op + " statuses").allMatch(SubmitHandle::ok);
    }
}
