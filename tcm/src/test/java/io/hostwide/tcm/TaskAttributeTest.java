package io.hostwide.tcm;

import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.core.TaskAttributeGate;
import io.hostwide.tcm.core.TaskSet;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandGate;
import io.hostwide.tcm.dispatch.GateSlot;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.Backstore;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.TargetCommand;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.hostwide.tcm.Harness.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;

/** SIMPLE / ORDERED / HEAD OF QUEUE ordering (SAM-5 §8.6, LIO's 2021 algorithm, digest §6.3). */
class TaskAttributeTest {

    /** Blocking backstore: a read of LBA n waits until n is released; records the order reads start in. */
    static final class ControlledBackstore implements Backstore {
        final ConcurrentHashMap<Long, CountDownLatch> gates = new ConcurrentHashMap<>();
        final List<Long> started = new CopyOnWriteArrayList<>();

        CountDownLatch gate(long lba) { return gates.computeIfAbsent(lba, k -> new CountDownLatch(1)); }

        void release(long lba) { gate(lba).countDown(); }

        @Override public int blockSize() { return BLOCK; }
        @Override public long blockCount() { return 1024; }
        @Override public boolean blocking() { return true; }

        @Override
        public void read(long lba, ByteBuffer dst) {
            started.add(lba);
            try {
                gate(lba).await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            dst.position(dst.limit());
        }

        @Override public void write(long lba, ByteBuffer src, boolean fua) { started.add(lba); src.position(src.limit()); }
        @Override public void flush() {}
        @Override public boolean supportsUnmap() { return false; }
        @Override public boolean unmapReturnsZeros() { return true; }
        @Override public void unmap(long lba, long blocks) {}
        @Override public long provisioningRun(long lba, long maxBlocks) { return maxBlocks; }
        @Override public String describe() { return "controlled"; }
        @Override public void close() {}
    }

    /** Waits until {@code n} operations reached the backstore (a positive signal; fails after 30 s). */
    static void awaitStarted(ControlledBackstore b, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (b.started.size() < n) {
            assertThat(System.nanoTime() - deadline).as("%d operations started, waited for %d: %s", b.started.size(), n,
                    b.started).isNegative();
            Thread.sleep(1);
        }
    }

    @Test
    void orderedWaitsForOlderCommandsAndNewerSimpleWaitsBehindItWhileHeadOfQueueJumps() throws Exception {
        ControlledBackstore b = new ControlledBackstore();
        try (Harness h = new Harness(new DeviceAttributes().queueDepth(16).ioThreads(8), b)) {
            TaskSet ts = h.core.taskSet(h.device);
            CompletableFuture<TestFabric.Result> simple1 = h.fabric.start(h.session, 0, Harness.read10(1, 1),
                    TaskAttribute.SIMPLE, BLOCK, TargetCommand.DIR_READ, null);
            awaitStarted(b, 1);
            CompletableFuture<TestFabric.Result> ordered2 = h.fabric.start(h.session, 0, Harness.write10(2, 1),
                    TaskAttribute.ORDERED, BLOCK, TargetCommand.DIR_WRITE, new byte[BLOCK]);
            CompletableFuture<TestFabric.Result> simple3 = h.fabric.start(h.session, 0, Harness.read10(3, 1),
                    TaskAttribute.SIMPLE, BLOCK, TargetCommand.DIR_READ, null);
            CompletableFuture<TestFabric.Result> head4 = h.fabric.start(h.session, 0, Harness.read10(4, 1),
                    TaskAttribute.HEAD_OF_QUEUE, BLOCK, TargetCommand.DIR_READ, null);
            awaitStarted(b, 2);
            assertThat(b.started).containsExactly(1L, 4L);
            assertThat(ts.delayed()).isEqualTo(2);
            assertThat(ts.nonOrdered()).isEqualTo(2);

            b.release(1);
            assertThat(simple1.get(10, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
            // The gate decided when SIMPLE 1 completed: its exit (and the drain that would resume ORDERED 2) runs
            // before the fabric's complete, so this is the state after the decision, not a window. ORDERED 2 still
            // waits for the HEAD OF QUEUE command: parked, not in progress, SIMPLE 3 parked behind it.
            assertThat(ts.orderedInProgress()).isFalse();
            assertThat(ts.delayed()).isEqualTo(2);
            assertThat(ts.nonOrdered()).isEqualTo(1); // HEAD OF QUEUE 4
            assertThat(b.started).containsExactly(1L, 4L);

            b.release(4);
            assertThat(head4.get(10, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(ordered2.get(10, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
            awaitStarted(b, 4);
            assertThat(b.started).containsExactly(1L, 4L, 2L, 3L);
            b.release(3);
            assertThat(simple3.get(10, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(ts.delayed()).isZero();
            assertThat(ts.nonOrdered()).isZero();
            assertThat(ts.orderedInProgress()).isFalse();
        }
    }

    @Test
    void orderedWithNothingOlderRunsAtOnceAndInquiryIsImplicitlyHeadOfQueue() throws Exception {
        ControlledBackstore b = new ControlledBackstore();
        try (Harness h = new Harness(new DeviceAttributes().queueDepth(16).ioThreads(8), b)) {
            b.release(7);
            assertThat(h.fabric.run(h.session, 0, Harness.read10(7, 1), TaskAttribute.ORDERED, BLOCK,
                    TargetCommand.DIR_READ, null).status()).isEqualTo(ScsiStatus.GOOD);
            CompletableFuture<TestFabric.Result> ordered = h.fabric.start(h.session, 0, Harness.read10(8, 1),
                    TaskAttribute.ORDERED, BLOCK, TargetCommand.DIR_READ, null);
            awaitStarted(b, 2);
            // INQUIRY passes a running ORDERED command
            assertThat(h.in(Harness.cdb(0x12, 0, 0, 0, 36, 0), 36).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(ordered.isDone()).isFalse();
            // a SIMPLE command arriving while the ORDERED one runs (nothing else parked) waits for it
            CompletableFuture<TestFabric.Result> simple = h.fabric.start(h.session, 0, Harness.read10(9, 1),
                    TaskAttribute.SIMPLE, BLOCK, TargetCommand.DIR_READ, null);
            b.release(9);
            // submit passes the gates on this thread: on return SIMPLE 9 is parked (counted as delayed beside the
            // running ORDERED 8) and not running, whatever the machine's load
            TaskSet ts = h.core.taskSet(h.device);
            assertThat(ts.orderedInProgress()).isTrue();
            assertThat(ts.delayed()).isEqualTo(2);
            assertThat(ts.nonOrdered()).isZero();
            assertThat(b.started).containsExactly(7L, 8L);
            assertThat(simple.isDone()).isFalse();
            b.release(8);
            assertThat(ordered.get(10, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(simple.get(10, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.core.taskSet(h.device).delayed()).isZero();
        }
    }

    /** Aborting a parked ORDERED command fixes the counters and releases the SIMPLE commands queued behind it. */
    @Test
    void abortingAParkedOrderedCommandReleasesTheCommandsBehindIt() throws Exception {
        ControlledBackstore b = new ControlledBackstore();
        try (Harness h = new Harness(new DeviceAttributes().queueDepth(16).ioThreads(8), b)) {
            TaskAttributeGate gate = (TaskAttributeGate) h.core.gate(GateSlot.TASK_ATTRIBUTE);
            Command[] parked = new Command[1];
            h.core.installGate(GateSlot.ALUA, new CommandGate() { // sees each command just before ordering
                @Override public int enter(Command cmd) {
                    if (cmd.taskAttribute() == TaskAttribute.ORDERED) {
                        parked[0] = cmd;
                    }
                    return PASS;
                }
            });
            CompletableFuture<TestFabric.Result> simple1 = h.fabric.start(h.session, 0, Harness.read10(1, 1),
                    TaskAttribute.SIMPLE, BLOCK, TargetCommand.DIR_READ, null);
            awaitStarted(b, 1);
            CompletableFuture<TestFabric.Result> ordered = h.fabric.start(h.session, 0, Harness.read10(2, 1),
                    TaskAttribute.ORDERED, BLOCK, TargetCommand.DIR_READ, null);
            CompletableFuture<TestFabric.Result> simple3 = h.fabric.start(h.session, 0, Harness.read10(3, 1),
                    TaskAttribute.SIMPLE, BLOCK, TargetCommand.DIR_READ, null);
            assertThat(h.core.taskSet(h.device).delayed()).isEqualTo(2);
            assertThat(gate.abortParked(parked[0])).isTrue();
            assertThat(gate.abortParked(parked[0])).isFalse();
            withReason(parked[0], SenseReason.TASK_ABORTED).complete();
            assertThat(ordered.get(10, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.TASK_ABORTED);
            awaitStarted(b, 2); // SIMPLE 3 no longer waits: it runs beside SIMPLE 1
            assertThat(b.started).containsExactly(1L, 3L);
            assertThat(h.core.taskSet(h.device).delayed()).isZero();
            b.release(1);
            b.release(3);
            assertThat(simple1.get(10, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(simple3.get(10, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.core.taskSet(h.device).delayed()).isZero();
            assertThat(h.core.taskSet(h.device).nonOrdered()).isZero();
        }
    }

    static Command withReason(Command c, SenseReason r) {
        c.fail(r);
        return c;
    }

    /**
     * Backstore that counts SIMPLE (LBA < 256) and ORDERED (LBA >= 512) commands inside it and notes any overlap
     * with an ORDERED one. HEAD OF QUEUE commands (LBA 256..511) may legitimately pass an ORDERED one: not counted.
     */
    static final class OverlapBackstore implements Backstore {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger orderedOverlaps = new AtomicInteger();

        @Override public int blockSize() { return BLOCK; }
        @Override public long blockCount() { return 1024; }
        @Override public boolean blocking() { return true; }

        @Override
        public void read(long lba, ByteBuffer dst) {
            if (lba >= 256 && lba < 512) {
                java.util.concurrent.locks.LockSupport.parkNanos(50_000);
                dst.position(dst.limit());
                return;
            }
            int n = inside.incrementAndGet();
            if (lba >= 512 && n != 1) {
                orderedOverlaps.incrementAndGet();
            }
            java.util.concurrent.locks.LockSupport.parkNanos(lba >= 512 ? 200_000 : 50_000); // widen the windows
            if (lba >= 512 && inside.get() != 1) {
                orderedOverlaps.incrementAndGet();
            }
            inside.decrementAndGet();
            dst.position(dst.limit());
        }

        @Override public void write(long lba, ByteBuffer src, boolean fua) { src.position(src.limit()); }
        @Override public void flush() {}
        @Override public boolean supportsUnmap() { return false; }
        @Override public boolean unmapReturnsZeros() { return true; }
        @Override public void unmap(long lba, long blocks) {}
        @Override public long provisioningRun(long lba, long maxBlocks) { return maxBlocks; }
        @Override public String describe() { return "overlap"; }
        @Override public void close() {}
    }

    /**
     * Concurrent submitters mixing SIMPLE, ORDERED and HEAD OF QUEUE: an ORDERED command never overlaps a SIMPLE
     * or another ORDERED one, every command completes (no lost wake-up), and the counters return to zero.
     */
    @Test
    void orderedRunsAloneUnderConcurrentSubmission() throws Exception {
        OverlapBackstore b = new OverlapBackstore();
        try (Harness h = new Harness(new DeviceAttributes().queueDepth(64).ioThreads(4), b)) {
            List<Thread> ts = new ArrayList<>();
            List<CompletableFuture<TestFabric.Result>> all = new CopyOnWriteArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            for (int t = 0; t < 3; t++) {
                Session s = h.newSession("iqn.2026-12.io.hostwide:ta" + t);
                int seed = t;
                Thread th = new Thread(() -> {
                    Random rnd = new Random(seed);
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < 400; i++) {
                        int k = rnd.nextInt(10);
                        TaskAttribute a = k == 0 ? TaskAttribute.ORDERED : k == 1 ? TaskAttribute.HEAD_OF_QUEUE : TaskAttribute.SIMPLE;
                        long lba = (a == TaskAttribute.ORDERED ? 512 : a == TaskAttribute.HEAD_OF_QUEUE ? 256 : 0)
                                + rnd.nextInt(256);
                        CompletableFuture<TestFabric.Result> f = h.fabric.start(s, 0, Harness.read10(lba, 1), a, BLOCK,
                                TargetCommand.DIR_READ, null);
                        all.add(f);
                        if (all.size() % 32 == 0) {
                            f.join(); // keep the queue below its depth most of the time
                        }
                    }
                });
                ts.add(th);
                th.start();
            }
            go.countDown();
            for (Thread th : ts) {
                th.join(60_000);
            }
            int good = 0;
            for (CompletableFuture<TestFabric.Result> f : all) {
                int st = f.get(30, TimeUnit.SECONDS).status();
                assertThat(st).isIn(ScsiStatus.GOOD, ScsiStatus.TASK_SET_FULL);
                if (st == ScsiStatus.GOOD) {
                    good++;
                }
            }
            assertThat(good).isGreaterThan(all.size() / 2);
            assertThat(b.orderedOverlaps.get()).isZero();
            TaskSet set = h.core.taskSet(h.device);
            assertThat(set.delayed()).isZero();
            assertThat(set.nonOrdered()).isZero();
            assertThat(set.orderedInProgress()).isFalse();
        }
    }
}
