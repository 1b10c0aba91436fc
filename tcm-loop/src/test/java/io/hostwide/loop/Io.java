package io.hostwide.loop;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.api.SubmitHandle;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Test I/O helpers: one synchronous request, and batches with exactly-once accounting. */
final class Io {
    private Io() {
    }

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

    /** Counts completions per userData and statuses; {@link #await} waits for n distinct completions. */
    static final class Batch {
        final ConcurrentHashMap<Long, AtomicInteger> seen = new ConcurrentHashMap<>();
        final ConcurrentHashMap<Long, BlkStatus> status = new ConcurrentHashMap<>();
        final AtomicInteger outstanding = new AtomicInteger();
        final io.hostwide.blk.IoCallback cb = (ud, s) -> {
            seen.computeIfAbsent(ud, k -> new AtomicInteger()).incrementAndGet();
            status.put(ud, s);
            outstanding.decrementAndGet();
        };

        void submit(SubmitHandle h, ReqOp op, long off, int len, ByteBuffer buf, long ud, int iodepth) {
            while (outstanding.get() >= iodepth) {
                Thread.onSpinWait();
            }
            outstanding.incrementAndGet();
            h.submit(op, off, len, buf, cb, ud);
        }

        void await(long timeoutMillis) throws InterruptedException {
            long end = System.nanoTime() + timeoutMillis * 1_000_000L;
            while (outstanding.get() > 0) {
                if (System.nanoTime() > end) {
                    throw new AssertionError(outstanding.get() + " requests never completed");
                }
                Thread.sleep(1);
            }
        }

        boolean eachOnce(int n) {
            return seen.size() == n && seen.values().stream().allMatch(a -> a.get() == 1);
        }
    }
}
