package io.hostwide.iscsi.initiator;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.scsi.mid.ErrorHandler;
import io.hostwide.scsi.sd.ScsiDisk;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Completion polling ({@code mq_poll}, {@link IscsiConnection#poll}): a submitting thread that reads the connection
 * itself must lose no completion and complete none twice — alone, with other pollers on the same connection, beside a
 * submitter that does not poll (whose completions the reader thread must still deliver once polling stops), and
 * when a response is lost (abort and retry) or the session drops (relogin and retry). Waits are bounded hang guards
 * (60 s), never timing assertions.
 */
class PolledCompletionTest {
    private static final int SCSI_RESPONSE = 0x21;
    private static final long HANG_NANOS = 60_000_000_000L;

    private static InitiatorConfig oneConnection(int port) {
        return new InitiatorConfig(IscsiUrl.parse("iscsi://127.0.0.1:" + port + "/" + TestTarget.IQN + "/0"))
                .connections(1);
    }

    /**
     * Submits {@code bufs} at consecutive offsets from {@code base} with up to {@code depth} in flight, reaping by
     * polling (or, with {@code poll} false, by waiting for the callbacks); asserts each request completed exactly
     * once, OK. Returns how many callbacks ran on the calling thread.
     */
    private static int run(SubmitHandle h, ReqOp op, long base, int size, ByteBuffer[] bufs, int depth, boolean poll)
            throws InterruptedException {
        Thread me = Thread.currentThread();
        ConcurrentHashMap<Long, AtomicInteger> seen = new ConcurrentHashMap<>();
        ConcurrentHashMap<Long, BlkStatus> status = new ConcurrentHashMap<>();
        AtomicInteger outstanding = new AtomicInteger();
        AtomicInteger onMe = new AtomicInteger();
        long end = System.nanoTime() + HANG_NANOS;
        for (int i = 0; i <= bufs.length; i++) {
            int atMost = i == bufs.length ? 0 : depth - 1;
            while (outstanding.get() > atMost) {
                if (System.nanoTime() > end) {
                    throw new AssertionError(op + ": " + outstanding.get() + " requests never completed");
                }
                if (!poll || h.poll(10_000_000L) < 0) {
                    Thread.sleep(0, 100_000);
                }
            }
            if (i == bufs.length) {
                break;
            }
            outstanding.incrementAndGet();
            h.submit(op, base + (long) i * size, size, bufs[i], (ud, s) -> {
                seen.computeIfAbsent(ud, k -> new AtomicInteger()).incrementAndGet();
                status.put(ud, s);
                if (Thread.currentThread() == me) {
                    onMe.incrementAndGet();
                }
                outstanding.decrementAndGet();
            }, i);
        }
        assertThat(seen).as(op + ": every request completed").hasSize(bufs.length);
        assertThat(seen.values()).as(op + ": no request completed twice").allMatch(a -> a.get() == 1);
        assertThat(status.values()).as(op + " statuses").allMatch(SubmitHandle::ok);
        return onMe.get();
    }

    private static ByteBuffer[] random(int count, int size, long seed) {
        Random rnd = new Random(seed);
        ByteBuffer[] b = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            b[i] = ByteBuffer.allocateDirect(size);
            byte[] x = new byte[size];
            rnd.nextBytes(x);
            b[i].put(x).clear();
        }
        return b;
    }

    private static ByteBuffer[] empty(int count, int size) {
        ByteBuffer[] b = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            b[i] = ByteBuffer.allocateDirect(size);
        }
        return b;
    }

    /** Writes, then reads back by polling (or not), and compares. Returns the callbacks run on this thread. */
    private static int writeReadVerify(ScsiDisk disk, long base, int size, int count, int depth, boolean poll,
                                       long seed) throws InterruptedException {
        ByteBuffer[] out = random(count, size, seed);
        ByteBuffer[] in = empty(count, size);
        int onMe;
        try (SubmitHandle h = disk.openHandle()) {
            onMe = run(h, ReqOp.WRITE, base, size, out, depth, poll);
            onMe += run(h, ReqOp.READ, base, size, in, depth, poll);
        }
        for (int i = 0; i < count; i++) {
            assertThat(in[i]).as("request %d of %d bytes at %d", i, size, base).isEqualTo(out[i]);
        }
        return onMe;
    }

    @Test
    void aPollingSubmitterReapsItsOwnCompletions() throws Exception {
        try (TestTarget t = new TestTarget(); IscsiHba hba = IscsiHba.connect(oneConnection(t.port()))) {
            // 4 KiB and 256 KiB (Data-In placed straight into the buffer), queue depth 1 and 8.
            int onMe = writeReadVerify(hba.disk(0), 0, 4096, 200, 1, true, 1);
            onMe += writeReadVerify(hba.disk(0), 1L << 20, 4096, 200, 8, true, 2);
            onMe += writeReadVerify(hba.disk(0), 4L << 20, 256 << 10, 16, 2, true, 3);
            assertThat(hba.stats().polledPdus()).as("PDUs handled by the polling thread").isPositive();
            assertThat(onMe).as("completions that ran on the polling thread").isPositive();
            assertThat(hba.reinstatements()).isZero();
        }
    }

    /**
     * Large reads whose bytes arrive in small pieces, polled and waited for: every read of the non-blocking socket
     * comes back short (inside a BHS, inside a Data-In segment placed straight into its buffer, between the two),
     * and after a short read the receiver waits in the selector before it reads again. No byte may be lost or land
     * in the wrong place, no completion may go missing.
     */
    @Test
    void largeReadsArrivingInPiecesArriveWhole() throws Exception {
        try (TestTarget t = new TestTarget(); PduProxy p = new PduProxy(t.port());
             IscsiHba hba = IscsiHba.connect(oneConnection(p.port()))) {
            ScsiDisk disk = hba.disk(0);
            writeReadVerify(disk, 0, 4096, 4, 1, true, 70);   // the first poll makes the socket non-blocking
            p.trickle(7001);   // odd: the piece boundaries wander through headers and segments
            writeReadVerify(disk, 1L << 20, 1 << 20, 4, 1, true, 71);
            writeReadVerify(disk, 8L << 20, 300 << 10, 6, 3, true, 72);
            writeReadVerify(disk, 16L << 20, 1 << 20, 3, 2, false, 73);
            p.trickle(13);
            writeReadVerify(disk, 24L << 20, 4096, 8, 2, true, 74);
            assertThat(hba.stats().polledPdus()).isPositive();
            assertThat(hba.reinstatements()).isZero();
        }
    }

    /** The selector costs a syscall more per wait than a blocking read: only a connection someone polls pays it. */
    @Test
    void aConnectionStaysBlockingUntilSomeonePollsIt() throws Exception {
        try (TestTarget t = new TestTarget(); IscsiHba hba = IscsiHba.connect(oneConnection(t.port()))) {
            writeReadVerify(hba.disk(0), 0, 4096, 20, 4, false, 50);
            IscsiConnection c = hba.session().live().conns()[0];
            assertThat(c.pollable()).as("nobody polled: the reader thread reads blocking").isFalse();
            writeReadVerify(hba.disk(0), 0, 4096, 20, 1, true, 51);
            assertThat(c.pollable()).as("switched to the selector at the first poll").isTrue();
            assertThat(hba.stats().polledPdus()).isPositive();
        }
    }

    /**
     * Regression: a poll that found the reader thread in its selector returned -1 after waking it, and the reader
     * then stood aside for that poll while the caller waited for a completion nobody read (a stall per completion on
     * a busy machine). The poll now waits for the receive lock and takes the connection over.
     */
    @Test
    void aPollTakesTheConnectionOverFromTheReaderThread() throws Exception {
        try (TestTarget t = new TestTarget(); IscsiHba hba = IscsiHba.connect(oneConnection(t.port()))) {
            writeReadVerify(hba.disk(0), 0, 4096, 20, 1, true, 60);
            IscsiConnection c = hba.session().live().conns()[0];
            assertThat(c.pollable()).isTrue();
            // Nobody polls now: the reader thread takes the socket back and waits in the selector, holding it.
            Await.until("the reader thread to receive again", c::receiving);
            assertThat(c.poll(HANG_NANOS)).as("the poll was handed the connection").isGreaterThanOrEqualTo(0);
            // And I/O reaped by polling right after the hand-over still completes, once each.
            writeReadVerify(hba.disk(0), 1L << 20, 4096, 20, 1, true, 61);
            assertThat(hba.reinstatements()).isZero();
        }
    }

    @Test
    void pollersAndAWaiterShareOneConnectionAndLoseNothing() throws Exception {
        try (TestTarget t = new TestTarget(); IscsiHba hba = IscsiHba.connect(oneConnection(t.port()))) {
            ScsiDisk disk = hba.disk(0);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> jobs = new ArrayList<>();
            for (int j = 0; j < 4; j++) {
                int job = j;
                // Jobs 0-2 poll; job 3 only waits: its completions come from a poller or from the reader thread,
                // which must take the connection back when the pollers are done and job 3 still has I/O out.
                Thread th = new Thread(() -> {
                    try {
                        int count = job == 3 ? 300 : 150;
                        writeReadVerify(disk, job * (8L << 20), 4096, count, 4, job != 3, 10 + job);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "job-" + j);
                jobs.add(th);
                th.start();
            }
            for (Thread th : jobs) {
                th.join(HANG_NANOS / 1_000_000L);
                assertThat(th.isAlive()).as(th.getName() + " finished").isFalse();
            }
            assertThat(failure.get()).isNull();
            assertThat(hba.reinstatements()).isZero();
        }
    }

    @Test
    void aLostResponseIsAbortedAndRetriedWhileTheSubmitterPolls() throws Exception {
        try (TestTarget t = new TestTarget(); PduProxy p = new PduProxy(t.port());
             IscsiHba hba = IscsiHba.connect(oneConnection(p.port()).ioTimeoutMillis(1000).tmfTimeoutMillis(300))) {
            writeReadVerify(hba.disk(0), 0, 4096, 4, 1, true, 20);
            p.dropNext(SCSI_RESPONSE, 1);
            // The poller waits for a response that never comes; the block timeout, ABORT TASK (whose answer the
            // poller itself reads) and the retry must still end the request, once.
            writeReadVerify(hba.disk(0), 65536, 4096, 4, 1, true, 21);
            ErrorHandler eh = hba.host().errorHandler();
            assertThat(eh.aborts()).isGreaterThanOrEqualTo(1);
            assertThat(hba.reinstatements()).isZero();
        }
    }

    @Test
    void aSessionDropWhileTheSubmitterPollsIsRetriedAfterRelogin() throws Exception {
        try (TestTarget t = new TestTarget(); PduProxy p = new PduProxy(t.port());
             IscsiHba hba = IscsiHba.connect(oneConnection(p.port()).ioTimeoutMillis(30_000))) {
            p.corruptNext(SCSI_RESPONSE);   // read by the poller: the connection drops, the session logs in again
            writeReadVerify(hba.disk(0), 0, 4096, 8, 1, true, 30);
            assertThat(hba.reinstatements()).isEqualTo(1);
            writeReadVerify(hba.disk(0), 0, 4096, 8, 2, true, 31);   // and polling works on the new connection
        }
    }

    @Test
    void aDeviceThatIsNotLoggedInRefusesThePoll() throws Exception {
        TestTarget t = new TestTarget();
        try (IscsiHba hba = IscsiHba.connect(oneConnection(t.port()).recoveryTimeoutMillis(60_000))) {
            t.stop();
            // The connection drops (EOF on the reader thread): the session recovers, and a poll meanwhile says -1.
            Await.until("the session to leave LOGGED_IN",
                    () -> hba.session().state() != InitiatorSession.State.LOGGED_IN);
            try (SubmitHandle h = hba.disk(0).openHandle()) {
                assertThat(h.poll(1_000_000L)).isEqualTo(-1);
            }
        } finally {
            t.close();
        }
    }

    /** A direct read in a test thread: the synchronous helper still works with polling threads around. */
    @Test
    void syncIoWithoutPollingStillCompletesAfterPolling() throws Exception {
        try (TestTarget t = new TestTarget(); IscsiHba hba = IscsiHba.connect(oneConnection(t.port()))) {
            writeReadVerify(hba.disk(0), 0, 4096, 50, 1, true, 40);
            // Right after polling stopped: the reader thread must take over within its park, the request completes.
            ByteBuffer b = ByteBuffer.allocate(4096);
            try (SubmitHandle h = hba.disk(0).openHandle()) {
                CountDownLatch done = new CountDownLatch(1);
                h.submit(ReqOp.READ, 0, 4096, b, (ud, s) -> done.countDown(), 0);
                assertThat(done.await(60, TimeUnit.SECONDS)).as("completed without polling").isTrue();
            }
        }
    }
}
