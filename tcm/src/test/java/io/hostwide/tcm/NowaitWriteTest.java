package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.core.TaskSet;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.tcm.spi.Backstore;
import io.hostwide.tcm.spi.TargetCommand;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.hostwide.tcm.Harness.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The non-blocking first attempt of WRITE on a blocking backstore (CommandDescriptor.TRY_NOWAIT, issue 13): written
 * on the submitting thread when the backstore can do it without waiting for storage, otherwise on the I/O queue as
 * before, with the same data, the same FUA durability, the same errors, task-attribute order and COMPARE AND WRITE
 * atomicity either way. No timing: every wait is for an event.
 */
class NowaitWriteTest {

    /**
     * A blocking backstore over RAM whose {@link #tryWriteNow} accepts a write unless told to refuse it (EAGAIN),
     * and refuses FUA ones when {@link #refuseFua} (a file on a disk, whose fdatasync waits for the device).
     */
    static final class NowBackstore implements Backstore {
        final RamBackstore ram = new RamBackstore(Harness.BLOCKS * BLOCK, BLOCK);
        volatile boolean refuse;
        volatile boolean refuseFua;
        volatile IOException nowError;
        volatile IOException writeError;
        final Set<Thread> nowThreads = ConcurrentHashMap.newKeySet();
        final Set<Thread> writeThreads = ConcurrentHashMap.newKeySet();
        /** The fua argument of every call, in order: "now:true", "queued:false"... */
        final List<String> calls = new CopyOnWriteArrayList<>();
        final AtomicInteger nowDone = new AtomicInteger();

        @Override public int blockSize() { return BLOCK; }
        @Override public long blockCount() { return Harness.BLOCKS; }
        @Override public boolean blocking() { return true; }
        /** Turned off as NativeNowaitReads does on EOPNOTSUPP: the core then stops asking. */
        volatile boolean writesNow = true;

        @Override public boolean writesNow() { return writesNow; }

        @Override
        public boolean tryWriteNow(long lba, ByteBuffer src, boolean fua) throws IOException {
            calls.add("now:" + fua);
            nowThreads.add(Thread.currentThread());
            if (nowError != null) {
                throw nowError;
            }
            if (refuse || (fua && refuseFua)) {
                return false;
            }
            ram.write(lba, src, fua);
            nowDone.incrementAndGet();
            return true;
        }

        @Override
        public void write(long lba, ByteBuffer src, boolean fua) throws IOException {
            calls.add("queued:" + fua);
            writeThreads.add(Thread.currentThread());
            if (writeError != null) {
                throw writeError;
            }
            ram.write(lba, src, fua);
        }

        @Override public void read(long lba, ByteBuffer dst) throws IOException { ram.read(lba, dst); }
        @Override public void flush() {}
        @Override public boolean supportsUnmap() { return false; }
        @Override public boolean unmapReturnsZeros() { return true; }
        @Override public void unmap(long lba, long blocks) {}
        @Override public long provisioningRun(long lba, long maxBlocks) { return maxBlocks; }
        @Override public String describe() { return "now"; }
        @Override public void close() {}
    }

    static byte[] write10Fua(long lba, int blocks) {
        byte[] c = Harness.write10(lba, blocks);
        c[1] |= 0x08; // FUA
        return c;
    }

    @Test
    void aWriteIsDoneOnTheSubmittingThreadAndLands() {
        NowBackstore b = new NowBackstore();
        try (Harness h = new Harness(new DeviceAttributes(), b)) {
            byte[] data = Harness.pattern(8 * BLOCK, 3);
            assertThat(h.out(Harness.write10(40, 8), data).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.calls).containsExactly("now:false");
            assertThat(b.nowThreads).containsExactly(Thread.currentThread());
            assertThat(h.in(Harness.read10(40, 8), 8 * BLOCK).data()).isEqualTo(data);
            assertThat(h.core.dump()).contains("nowait_writes_done=1 nowait_writes_queued=0");
        }
    }

    /** EAGAIN (or a short write): the whole write runs again on the I/O queue, with the same data. */
    @Test
    void aRefusedWriteFallsBackToTheQueue() {
        NowBackstore b = new NowBackstore();
        b.refuse = true;
        try (Harness h = new Harness(new DeviceAttributes(), b)) {
            byte[] data = Harness.pattern(4 * BLOCK, 5);
            assertThat(h.out(Harness.write10(100, 4), data).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.calls).containsExactly("now:false", "queued:false");
            assertThat(b.writeThreads).allSatisfy(t -> assertThat(t.getName()).contains("-io-"));
            assertThat(h.in(Harness.read10(100, 4), 4 * BLOCK).data()).isEqualTo(data);
            assertThat(h.core.dump()).contains("nowait_writes_done=0 nowait_writes_queued=1");
        }
    }

    /**
     * FUA (SBC-4 §5.43): the attempt is asked for a durable write; a backstore that cannot make it durable without
     * waiting refuses, and the queued write is asked for a durable one, so GOOD never precedes durability.
     */
    @Test
    void fuaIsAskedForDurabilityInlineAndQueued() {
        NowBackstore b = new NowBackstore();
        b.refuseFua = true;
        try (Harness h = new Harness(new DeviceAttributes(), b)) {
            assertThat(h.out(write10Fua(8, 1), Harness.pattern(BLOCK, 1)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.calls).containsExactly("now:true", "queued:true");
            b.calls.clear();
            assertThat(h.out(Harness.write10(8, 1), Harness.pattern(BLOCK, 2)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.calls).as("a write without FUA stays inline").containsExactly("now:false");
        }
    }

    /** With the write cache off (WCE = 0) every write is durable, inline as queued. */
    @Test
    void writeCacheOffMakesEveryWriteDurable() {
        NowBackstore b = new NowBackstore();
        try (Harness h = new Harness(new DeviceAttributes().writeCacheEnabled(false), b)) {
            assertThat(h.out(Harness.write10(8, 1), Harness.pattern(BLOCK, 1)).status()).isEqualTo(ScsiStatus.GOOD);
            b.refuseFua = true;
            assertThat(h.out(Harness.write10(9, 1), Harness.pattern(BLOCK, 2)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.calls).containsExactly("now:true", "now:true", "queued:true");
        }
    }

    /** An error in the attempt is not lost: the queued write meets it and answers MEDIUM ERROR with the LBA. */
    @Test
    void anErrorInTheAttemptIsReportedByTheQueuedWrite() {
        NowBackstore b = new NowBackstore();
        b.nowError = new IOException("injected EIO in pwritev2");
        b.writeError = new IOException("injected EIO in pwrite");
        try (Harness h = new Harness(new DeviceAttributes(), b)) {
            TestFabric.Result r = h.out(Harness.write10(300, 2), Harness.pattern(2 * BLOCK, 9));
            assertThat(r.senseKey()).isEqualTo(SenseKey.MEDIUM_ERROR);
            assertThat(r.ascAscq()).isEqualTo(Asc.WRITE_ERROR);
            assertThat(r.information()).isEqualTo(300);
            assertThat(b.calls).containsExactly("now:false", "queued:false");
        }
    }

    /** A backstore that finds out later it cannot write without blocking (ext4: EOPNOTSUPP) is not asked again. */
    @Test
    void aBackstoreThatTurnsWritesOffIsNotAskedAgain() {
        NowBackstore b = new NowBackstore();
        try (Harness h = new Harness(new DeviceAttributes(), b)) {
            assertThat(h.out(Harness.write10(1, 1), Harness.pattern(BLOCK, 1)).status()).isEqualTo(ScsiStatus.GOOD);
            b.writesNow = false;
            assertThat(h.out(Harness.write10(2, 1), Harness.pattern(BLOCK, 2)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.calls).containsExactly("now:false", "queued:false");
            assertThat(h.core.dump()).contains("nowait_writes_done=1 nowait_writes_queued=0");
        }
    }

    /** WRITE AND VERIFY has no inline attempt (its handler does not know nowait): only WRITE(6/10/12/16) is tried. */
    @Test
    void onlyWriteIsTried() {
        NowBackstore b = new NowBackstore();
        try (Harness h = new Harness(new DeviceAttributes(), b)) {
            byte[] wv = Harness.write10(20, 1);
            wv[0] = 0x2E; // WRITE AND VERIFY(10)
            wv[1] = 0;
            assertThat(h.out(wv, Harness.pattern(BLOCK, 4)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.calls).hasSize(1).allSatisfy(c -> assertThat(c).startsWith("queued:"));
        }
    }

    /**
     * SAM-5 §8.6.3: an ORDERED WRITE waits for the older SIMPLE command even though it could be written inline, and
     * a newer SIMPLE WRITE waits for it; the inline attempt only ever runs after the task-attribute gate.
     */
    @Test
    void anOrderedWriteStaysBehindOlderCommandsAndAheadOfNewerOnes() {
        GatedBackstore g = new GatedBackstore(1 << 20, BLOCK, true);
        try (Harness h = new Harness(new DeviceAttributes().ioThreads(4), g);
             GatedBackstore.Unblock unblock = g::unblock) {
            RecordingFabric f = new RecordingFabric();
            Session s = h.core.openSession(h.port, f, "iqn.2026-12.io.hostwide:w", "iqn.2026-12.io.hostwide:w,i,0x01");
            TaskSet o = h.core.taskSet(h.device);

            long a = f.read(s, 1, TaskAttribute.SIMPLE);         // held in the backstore, on the I/O queue
            assertThat(g.nextArrival()).isEqualTo(1);
            long b = f.write(s, 2, TaskAttribute.ORDERED);       // would be written inline: must wait for A
            long c = f.write(s, 3, TaskAttribute.SIMPLE);        // must wait for B
            assertThat(g.pendingArrivals()).as("neither write reached the backstore").isZero();
            assertThat(g.nowWrites).hasValue(0);
            assertThat(o.delayed()).as("B and C parked").isEqualTo(2);

            g.releaseLba(1);
            f.await(a);
            f.await(b);
            f.await(c);
            assertThat(g.nextArrival()).isEqualTo(2);
            assertThat(g.nextArrival()).isEqualTo(3);
            assertThat(g.nowWrites).as("both written by the inline attempt once released").hasValue(2);
            // Not asserted: the order of the responses. A's completion counts A done and starts B before A's
            // response reaches the fabric (as LIO's transport_complete_task_attr precedes its status), so B's and
            // C's responses, sent inline, may come first; the execution order above is what SAM-5 §8.6.3 orders.
        }
    }

    /**
     * A WRITE racing a COMPARE AND WRITE of the same blocks (SBC-4 §5.3): while the COMPARE AND WRITE holds the
     * range (here: parked in the backstore between its compare and its write), the WRITE is not written inline (it
     * would not block, but it must not land inside the COMPARE AND WRITE) and waits on the queue; afterwards it
     * lands whole, after it.
     */
    @Test
    void aWriteRacingCompareAndWriteWaitsForIt() throws Exception {
        GatedBackstore g = new GatedBackstore(1 << 20, BLOCK, true);
        try (Harness h = new Harness(new DeviceAttributes().ioThreads(4), g);
             GatedBackstore.Unblock unblock = g::unblock) {
            byte[] before = new byte[2 * BLOCK];
            byte[] cawData = Harness.pattern(2 * BLOCK, 21);
            byte[] writeData = Harness.pattern(2 * BLOCK, 22);
            CompletableFuture<TestFabric.Result> caw = h.fabric.start(h.session, LunAddress.encode(0),
                    AtomicWritesTest.caw(50, 2), TaskAttribute.SIMPLE, 4 * BLOCK, TargetCommand.DIR_WRITE,
                    AtomicWritesTest.concat(before, cawData));
            assertThat(g.nextArrival()).as("the compare's read, held").isEqualTo(50);

            CompletableFuture<TestFabric.Result> write = h.fabric.start(h.session, LunAddress.encode(0),
                    Harness.write10(51, 2), TaskAttribute.SIMPLE, 2 * BLOCK, TargetCommand.DIR_WRITE, writeData);
            assertThat(g.nowWrites).as("not written inline while COMPARE AND WRITE holds the range").hasValue(0);
            assertThat(g.pendingArrivals()).isZero();
            assertThat(write).isNotDone();

            g.releaseLba(50);                                   // the compare ends; the CAW writes (held again)
            assertThat(g.nextArrival()).as("the COMPARE AND WRITE's write").isEqualTo(50);
            assertThat(g.pendingArrivals()).as("the WRITE still waits for the range").isZero();
            g.releaseLba(50);
            assertThat(caw.get(10, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(g.nextArrival()).as("then the WRITE, from the queue").isEqualTo(51);
            g.release(1);
            assertThat(write.get(10, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(g.nowWrites).hasValue(0);

            g.unblock();
            byte[] expected = AtomicWritesTest.concat(java.util.Arrays.copyOf(cawData, BLOCK), writeData);
            assertThat(h.in(Harness.read10(50, 3), 3 * BLOCK).data()).isEqualTo(expected);
        }
    }
}
