package io.hostwide.iscsi.initiator;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.iscsi.login.NegotiationPolicy;
import io.hostwide.iscsi.login.ChapPolicy;
import io.hostwide.scsi.sd.ScsiDisk;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Commands submitted together (a plug) leave in one write with the last of them (SCMD_LAST) or with commit_rqs. Over a
 * CmdSN window narrower than the batch, the commands past the window are TARGET_BUSY: the ones held back before them
 * must still go out (commit_rqs), the rest follow as completions open the window, and every write reads back.
 */
class BatchedCommandsTest {
    private static final int SIZE = 4096;
    private static final int COUNT = 256;
    private static final int BATCH = 16;

    @Test
    void batchesLargerThanTheWindowLoseNothingAndKeepTheData() throws Exception {
        try (TestTarget t = new TestTarget(ChapPolicy.NONE, NegotiationPolicy.defaults(), 4, 8L << 20);
             IscsiHba hba = IscsiHba.connect(t.config())) {
            ScsiDisk disk = hba.disk(0);
            Random rnd = new Random(21);
            ByteBuffer[] out = new ByteBuffer[COUNT];
            ByteBuffer[] in = new ByteBuffer[COUNT];
            for (int i = 0; i < COUNT; i++) {
                byte[] b = new byte[SIZE];
                rnd.nextBytes(b);
                out[i] = ByteBuffer.wrap(b);
                in[i] = ByteBuffer.allocate(SIZE);
            }
            try (SubmitHandle h = disk.openHandle()) {
                inBatches(h, ReqOp.WRITE, out);
                inBatches(h, ReqOp.READ, in);
            }
            for (int i = 0; i < COUNT; i++) {
                // every other block, so the plug cannot merge neighbours into one command
                assertThat(in[i].array()).as("block %d", 2 * i).isEqualTo(out[i].array());
            }
            InitiatorStats st = hba.stats();
            assertThat(st.heldForBatch()).as("commands held back for their batch's write").isPositive();
            assertThat(st.windowClosed()).as("batches met the closed window").isPositive();
            assertThat(hba.reinstatements()).isZero();
        }
    }

    /** Submits {@code bufs} in plugged batches of {@link #BATCH}, two batches in flight; each completes once, OK. */
    private static void inBatches(SubmitHandle h, ReqOp op, ByteBuffer[] bufs) throws InterruptedException {
        ConcurrentHashMap<Long, AtomicInteger> seen = new ConcurrentHashMap<>();
        ConcurrentHashMap<Long, BlkStatus> status = new ConcurrentHashMap<>();
        AtomicInteger outstanding = new AtomicInteger();
        for (int i = 0; i < bufs.length; i += BATCH) {
            await(outstanding, BATCH, op + " batch at " + i);
            h.startPlug();
            for (int k = i; k < i + BATCH; k++) {
                outstanding.incrementAndGet();
                h.submit(op, 2L * k * SIZE, SIZE, bufs[k], (ud, s) -> {
                    seen.computeIfAbsent(ud, x -> new AtomicInteger()).incrementAndGet();
                    status.put(ud, s);
                    outstanding.decrementAndGet();
                }, k);
            }
            h.finishPlug();
        }
        await(outstanding, 0, op + " end");
        assertThat(seen).hasSize(bufs.length);
        assertThat(seen.values()).allMatch(a -> a.get() == 1);
        assertThat(status.values()).as(op + " statuses").allMatch(SubmitHandle::ok);
    }

    private static void await(AtomicInteger outstanding, int atMost, String what) throws InterruptedException {
        long end = System.nanoTime() + 60_000_000_000L;
        while (outstanding.get() > atMost) {
            if (System.nanoTime() > end) {
                throw new AssertionError(what + ": " + outstanding.get() + " requests never completed");
            }
            Thread.sleep(1);
        }
    }
}
