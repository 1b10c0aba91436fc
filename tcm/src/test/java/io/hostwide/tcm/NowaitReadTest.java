package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.Backstore;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static io.hostwide.tcm.Harness.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The non-blocking first attempt of READ on a blocking backstore (CommandDescriptor.TRY_NOWAIT, issue 13): served
 * on the submitting thread when the backstore has the data in memory, otherwise run on the I/O queue as before,
 * with the same data and the same errors either way.
 */
class NowaitReadTest {

    /**
     * A blocking backstore over RAM that "has in memory" only the LBAs in {@link #cached}: tryReadNow succeeds for
     * a range wholly in it and refuses anything else, as preadv2(RWF_NOWAIT) does with EAGAIN or a short read.
     */
    static final class CachedBackstore implements Backstore {
        final RamBackstore ram = new RamBackstore(Harness.BLOCKS * BLOCK, BLOCK);
        final Set<Long> cached = ConcurrentHashMap.newKeySet();
        final boolean readsNow;
        volatile IOException nowError;
        volatile IOException readError;
        final Set<Thread> nowThreads = ConcurrentHashMap.newKeySet();
        final Set<Thread> readThreads = ConcurrentHashMap.newKeySet();
        final AtomicInteger nowCalls = new AtomicInteger();
        final AtomicInteger reads = new AtomicInteger();

        CachedBackstore(boolean readsNow) { this.readsNow = readsNow; }

        @Override public int blockSize() { return BLOCK; }
        @Override public long blockCount() { return Harness.BLOCKS; }
        @Override public boolean blocking() { return true; }
        @Override public boolean readsNow() { return readsNow; }

        @Override
        public boolean tryReadNow(long lba, ByteBuffer dst) throws IOException {
            nowCalls.incrementAndGet();
            nowThreads.add(Thread.currentThread());
            if (nowError != null) {
                throw nowError;
            }
            long blocks = dst.remaining() / BLOCK;
            for (long b = lba; b < lba + blocks; b++) {
                if (!cached.contains(b)) {
                    return false;
                }
            }
            ram.read(lba, dst);
            return true;
        }

        @Override
        public void read(long lba, ByteBuffer dst) throws IOException {
            reads.incrementAndGet();
            readThreads.add(Thread.currentThread());
            if (readError != null) {
                throw readError;
            }
            ram.read(lba, dst);
        }

        @Override public void write(long lba, ByteBuffer src, boolean fua) throws IOException { ram.write(lba, src, fua); }
        @Override public void flush() {}
        @Override public boolean supportsUnmap() { return false; }
        @Override public boolean unmapReturnsZeros() { return true; }
        @Override public void unmap(long lba, long blocks) {}
        @Override public long provisioningRun(long lba, long maxBlocks) { return maxBlocks; }
        @Override public String describe() { return "cached"; }
        @Override public void close() {}
    }

    @Test
    void aCachedReadIsServedOnTheSubmittingThreadWithoutTheQueue() {
        CachedBackstore b = new CachedBackstore(true);
        try (Harness h = new Harness(new DeviceAttributes(), b)) {
            byte[] data = Harness.pattern(8 * BLOCK, 7);
            assertThat(h.out(Harness.write10(40, 8), data).status()).isEqualTo(ScsiStatus.GOOD);
            for (long l = 40; l < 48; l++) {
                b.cached.add(l);
            }
            TestFabric.Result r = h.in(Harness.read10(40, 8), 8 * BLOCK);
            assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(r.data()).isEqualTo(data);
            assertThat(b.reads).as("blocking reads").hasValue(0);
            assertThat(b.nowThreads).containsExactly(Thread.currentThread());
            assertThat(h.core.dump()).contains("nowait_done=1 nowait_queued=0");
        }
    }

    /** EAGAIN, or a range only partly in memory (a short read): the whole read runs on the I/O queue. */
    @Test
    void anUncachedOrPartlyCachedReadFallsBackToTheQueueWithTheSameData() {
        CachedBackstore b = new CachedBackstore(true);
        try (Harness h = new Harness(new DeviceAttributes(), b)) {
            byte[] data = Harness.pattern(8 * BLOCK, 11);
            assertThat(h.out(Harness.write10(100, 8), data).status()).isEqualTo(ScsiStatus.GOOD);
            b.cached.add(100L); // the first block only
            TestFabric.Result partly = h.in(Harness.read10(100, 8), 8 * BLOCK);
            TestFabric.Result none = h.in(Harness.read10(104, 4), 4 * BLOCK);
            assertThat(partly.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(partly.data()).isEqualTo(data);
            assertThat(none.data()).isEqualTo(java.util.Arrays.copyOfRange(data, 4 * BLOCK, 8 * BLOCK));
            assertThat(b.nowCalls).hasValue(2);
            assertThat(b.reads).hasValue(2);
            assertThat(b.readThreads).allSatisfy(t -> assertThat(t.getName()).contains("-io-"));
            assertThat(h.core.dump()).contains("nowait_done=0 nowait_queued=2");
        }
    }

    /** An error in the attempt is not lost: the queued read meets it and answers MEDIUM ERROR with the LBA. */
    @Test
    void anErrorInTheAttemptIsReportedByTheQueuedRead() {
        CachedBackstore b = new CachedBackstore(true);
        b.nowError = new IOException("injected EIO in preadv2");
        b.readError = new IOException("injected EIO in pread");
        try (Harness h = new Harness(new DeviceAttributes(), b)) {
            TestFabric.Result r = h.in(Harness.read10(200, 2), 2 * BLOCK);
            assertThat(r.senseKey()).isEqualTo(SenseKey.MEDIUM_ERROR);
            assertThat(r.ascAscq()).isEqualTo(Asc.UNRECOVERED_READ_ERROR);
            assertThat(r.information()).isEqualTo(200);
            assertThat(b.reads).hasValue(1);
        }
    }

    /** Checks that need no I/O answer on the attempt: LBA out of range is ILLEGAL REQUEST without queueing. */
    @Test
    void anOutOfRangeReadIsAnsweredByTheAttempt() {
        CachedBackstore b = new CachedBackstore(true);
        try (Harness h = new Harness(new DeviceAttributes(), b)) {
            TestFabric.Result r = h.in(Harness.read10(Harness.BLOCKS - 1, 2), 2 * BLOCK);
            assertThat(r.senseKey()).isEqualTo(SenseKey.ILLEGAL_REQUEST);
            assertThat(r.ascAscq()).isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
            assertThat(b.nowCalls).hasValue(0);
            assertThat(b.reads).hasValue(0);
        }
    }

    /** A backstore that never reads without blocking (the default, and Java 21) is never asked to. */
    @Test
    void aBackstoreWithoutNowaitReadsIsNotAsked() {
        CachedBackstore b = new CachedBackstore(false);
        b.cached.add(5L);
        try (Harness h = new Harness(new DeviceAttributes(), b)) {
            assertThat(h.in(Harness.read10(5, 1), BLOCK).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.nowCalls).hasValue(0);
            assertThat(b.reads).hasValue(1);
            assertThat(h.core.dump()).doesNotContain("nowait_");
        }
    }

    /**
     * A backstore that reads without blocking but does not say it writes so (writesNow false) is not asked to: a
     * WRITE on the same device still goes to the queue (NowaitWriteTest covers the one that does).
     */
    @Test
    void writesAreNotTried() {
        CachedBackstore b = new CachedBackstore(true);
        try (Harness h = new Harness(new DeviceAttributes(), b)) {
            assertThat(h.out(Harness.write10(5, 1), Harness.pattern(BLOCK, 1)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.nowCalls).hasValue(0);
            assertThat(h.core.dump()).contains("nowait_done=0 nowait_queued=0");
        }
    }
}
