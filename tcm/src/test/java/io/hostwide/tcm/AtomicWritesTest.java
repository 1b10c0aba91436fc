package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseData;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.Backstore;
import io.hostwide.tcm.spi.TargetCommand;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static io.hostwide.tcm.Harness.BLOCK;
import static io.hostwide.tcm.Harness.BLOCKS;
import static org.assertj.core.api.Assertions.assertThat;

/** COMPARE AND WRITE, ORWRITE(16), WRITE ATOMIC(16) (SBC-4 §5.3, §5.13, §5.48). */
class AtomicWritesTest {

    static byte[] caw(long lba, int blocks) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x89;
        BigEndian.put64(c, 2, lba);
        c[13] = (byte) blocks;
        return c;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Test
    void compareAndWriteSwapsWhenEqualAndReportsTheMiscompareOffset() {
        try (Harness h = new Harness()) {
            byte[] a = Harness.pattern(2 * BLOCK, 1);
            byte[] b = Harness.pattern(2 * BLOCK, 2);
            h.out(Harness.write10(5, 2), a);
            assertThat(h.out(caw(5, 2), concat(a, b)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(5, 2), 2 * BLOCK).data()).isEqualTo(b);
            byte[] wrong = b.clone();
            wrong[BLOCK + 33] ^= 0x40;
            TestFabric.Result m = h.out(caw(5, 2), concat(wrong, a));
            assertThat(m.senseKey()).isEqualTo(SenseKey.MISCOMPARE);
            assertThat(m.ascAscq()).isEqualTo(Asc.MISCOMPARE_DURING_VERIFY_OPERATION);
            assertThat(m.information()).isEqualTo(BLOCK + 33);
            assertThat(h.in(Harness.read10(5, 2), 2 * BLOCK).data()).isEqualTo(b); // unchanged
        }
    }

    @Test
    void compareAndWriteLimits() {
        try (Harness h = new Harness(new DeviceAttributes().maxCompareAndWriteLength(2))) {
            assertThat(h.out(caw(0, 3), new byte[6 * BLOCK]).fieldPointer()).isEqualTo(SenseData.fieldPointer(true, 13, -1));
            assertThat(h.out(caw(BLOCKS - 1, 2), new byte[4 * BLOCK]).ascAscq()).isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
            assertThat(h.fabric.run(h.session, 0, caw(0, 0), 0, TargetCommand.DIR_NONE, null).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.out(caw(0, 1), new byte[BLOCK]).status()).isEqualTo(ScsiStatus.CHECK_CONDITION); // half the data
            assertThat(h.out(caw(0, 1), new byte[3 * BLOCK]).status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        }
        try (Harness h = new Harness(new DeviceAttributes().emulateCaw(false))) {
            assertThat(h.out(caw(0, 1), new byte[2 * BLOCK]).ascAscq()).isEqualTo(Asc.INVALID_COMMAND_OPERATION_CODE);
        }
    }

    /**
     * libiscsi CompareAndWrite.Simple: with MAXIMUM COMPARE AND WRITE LENGTH 0 in VPD B0h it assumes no limit and
     * sends 256 blocks, which the one-byte NUMBER OF LOGICAL BLOCKS cannot carry. SBC-4 §6.6.4: the default
     * reports 255 (byte 5), and 255 blocks compare and write.
     */
    @Test
    void defaultMaximumCompareAndWriteLengthIs255AndReported() {
        try (Harness h = new Harness(new DeviceAttributes(), new RamBackstore(1024 * BLOCK,
                BLOCK))) {
            byte[] b0 = h.in(Harness.cdb(0x12, 1, 0xB0, 0, 255, 0), 255).data();
            assertThat(b0[5] & 0xFF).isEqualTo(255);
            byte[] a = Harness.pattern(255 * BLOCK, 5);
            byte[] b = Harness.pattern(255 * BLOCK, 6);
            byte[] write16 = new byte[16];
            write16[0] = (byte) 0x8A;
            BigEndian.put32(write16, 10, 255);
            assertThat(h.out(write16, a).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.out(caw(0, 255), concat(a, b)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(0, 255), 255 * BLOCK).data()).isEqualTo(b);
        }
    }

    /**
     * Contending COMPARE AND WRITEs implement a counter in block 0: each reads the value, then swaps value → value+1.
     * If two CAWs could both compare before either wrote, an increment would be lost: the final value must equal
     * the number of successful swaps.
     */
    @Test
    void compareAndWriteIsAtomicUnderContendingWriters() throws Exception {
        try (Harness h = new Harness()) {
            h.out(Harness.write10(0, 1), block(0));
            int threads = 4;
            int perThread = 300;
            AtomicInteger swaps = new AtomicInteger();
            AtomicInteger torn = new AtomicInteger();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Session s = h.newSession("iqn.2026-12.io.hostwide:caw" + t);
                Thread th = new Thread(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < perThread; i++) {
                        TestFabric.Result r = h.fabric.run(s, 0, Harness.read10(0, 1), BLOCK, TargetCommand.DIR_READ, null);
                        if (r.status() != ScsiStatus.GOOD) {
                            continue; // unit attention on the first command of the nexus
                        }
                        long v = value(r.data());
                        if (v < 0) {
                            torn.incrementAndGet();
                            continue;
                        }
                        TestFabric.Result c = h.fabric.run(s, 0, caw(0, 1), 2 * BLOCK, TargetCommand.DIR_WRITE,
                                concat(block(v), block(v + 1)));
                        if (c.status() == ScsiStatus.GOOD) {
                            swaps.incrementAndGet();
                        }
                    }
                });
                ts.add(th);
                th.start();
            }
            start.countDown();
            for (Thread th : ts) {
                th.join(60_000);
            }
            long end = value(h.in(Harness.read10(0, 1), BLOCK).data());
            assertThat(torn.get()).isZero();
            assertThat(end).isEqualTo(swaps.get());
            assertThat(swaps.get()).isPositive();
        }
    }

    /**
     * CAW against plain WRITEs of the same blocks: a backstore wrapper stamps every block on each write and
     * records, per thread, the stamps seen by its last read. When a CAW writes, no other write may have landed
     * on its blocks since its compare-read — otherwise the CAW would overwrite data it never compared.
     */
    @Test
    void noWriteLandsBetweenCompareAndWrite() throws Exception {
        InterleavingDetector det = new InterleavingDetector(new RamBackstore(BLOCKS * BLOCK, BLOCK));
        try (Harness h = new Harness(new DeviceAttributes(), det)) {
            byte[] zero = new byte[4 * BLOCK];
            h.out(Harness.write10(0, 4), zero);
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> ts = new ArrayList<>();
            AtomicInteger cawGood = new AtomicInteger();
            for (int t = 0; t < 4; t++) {
                boolean writer = t % 2 == 0;
                Session s = h.newSession("iqn.2026-12.io.hostwide:mix" + t);
                Thread th = new Thread(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < 400; i++) {
                        if (writer) {
                            h.fabric.run(s, 0, Harness.write10(i % 3, 2), 2 * BLOCK, TargetCommand.DIR_WRITE, zero);
                        } else {
                            TestFabric.Result c = h.fabric.run(s, 0, caw(1, 2), 4 * BLOCK, TargetCommand.DIR_WRITE, zero);
                            if (c.status() == ScsiStatus.GOOD) {
                                cawGood.incrementAndGet();
                            }
                        }
                    }
                });
                ts.add(th);
                th.start();
            }
            start.countDown();
            for (Thread th : ts) {
                th.join(60_000);
            }
            assertThat(cawGood.get()).isPositive();
            assertThat(det.checkedWrites.get()).isPositive();
            assertThat(det.violations.get()).isZero();
        }
    }

    /** Counts writes that land between another thread's read and write of the same blocks. */
    static final class InterleavingDetector implements Backstore {
        final Backstore inner;
        final java.util.concurrent.atomic.AtomicLongArray stamps;
        final ThreadLocal<long[]> lastRead = new ThreadLocal<>();
        final AtomicInteger violations = new AtomicInteger();
        final AtomicInteger checkedWrites = new AtomicInteger();

        InterleavingDetector(Backstore inner) {
            this.inner = inner;
            this.stamps = new java.util.concurrent.atomic.AtomicLongArray((int) inner.blockCount());
        }

        @Override public int blockSize() { return inner.blockSize(); }
        @Override public long blockCount() { return inner.blockCount(); }
        @Override public boolean blocking() { return false; }

        @Override
        public void read(long lba, java.nio.ByteBuffer dst) throws java.io.IOException {
            int n = dst.remaining() / BLOCK;
            long[] seen = new long[n + 2];
            seen[0] = lba;
            seen[1] = n;
            for (int i = 0; i < n; i++) {
                seen[2 + i] = stamps.get((int) lba + i);
            }
            inner.read(lba, dst);
            lastRead.set(seen);
        }

        @Override
        public void write(long lba, java.nio.ByteBuffer src, boolean fua) throws java.io.IOException {
            int n = src.remaining() / BLOCK;
            long[] seen = lastRead.get();
            if (seen != null && seen[0] == lba && seen[1] == n) { // a compare-then-write on this thread
                checkedWrites.incrementAndGet();
                for (int i = 0; i < n; i++) {
                    if (stamps.get((int) lba + i) != seen[2 + i]) {
                        violations.incrementAndGet();
                    }
                }
            }
            lastRead.remove();
            inner.write(lba, src, fua);
            for (int i = 0; i < n; i++) {
                stamps.incrementAndGet((int) lba + i);
            }
        }

        @Override public void flush() {}
        @Override public boolean supportsUnmap() { return false; }
        @Override public boolean unmapReturnsZeros() { return true; }
        @Override public void unmap(long lba, long blocks) {}
        @Override public long provisioningRun(long lba, long maxBlocks) { return maxBlocks; }
        @Override public String describe() { return "detector"; }
        @Override public void close() throws java.io.IOException { inner.close(); }
    }

    /** A block whose every 8-byte word holds {@code v}: a torn block has differing words. */
    static byte[] block(long v) {
        byte[] b = new byte[BLOCK];
        for (int i = 0; i < BLOCK; i += 8) {
            BigEndian.put64(b, i, v);
        }
        return b;
    }

    static long value(byte[] b) {
        long v = BigEndian.s64(b, 0);
        for (int i = 8; i < BLOCK; i += 8) {
            if (BigEndian.s64(b, i) != v) {
                return -1;
            }
        }
        return v;
    }

    @Test
    void orWriteOrsIntoTheMedium() {
        try (Harness h = new Harness()) {
            byte[] a = new byte[BLOCK];
            byte[] b = new byte[BLOCK];
            java.util.Arrays.fill(a, (byte) 0x0F);
            java.util.Arrays.fill(b, (byte) 0x30);
            h.out(Harness.write10(3, 1), a);
            byte[] c = new byte[16];
            c[0] = (byte) 0x8B;
            BigEndian.put64(c, 2, 3);
            BigEndian.put32(c, 10, 1);
            assertThat(h.out(c, b).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(3, 1), BLOCK).data()).containsOnly(0x3F);
            BigEndian.put64(c, 2, BLOCKS);
            assertThat(h.out(c, b).ascAscq()).isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
        }
    }

    static byte[] writeAtomic(long lba, int blocks, int boundary) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x9C;
        BigEndian.put64(c, 2, lba);
        BigEndian.put16(c, 10, boundary);
        BigEndian.put16(c, 12, blocks);
        return c;
    }

    @Test
    void writeAtomicHonoursTheBlockLimitsFields() {
        try (Harness h = new Harness(new DeviceAttributes().maxAtomicTransferLength(8).atomicAlignment(4)
                .atomicTransferLengthGranularity(2))) {
            byte[] data = Harness.pattern(4 * BLOCK, 11);
            assertThat(h.out(writeAtomic(8, 4, 0), data).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(8, 4), 4 * BLOCK).data()).isEqualTo(data);
            assertThat(h.out(writeAtomic(9, 4, 0), data).fieldPointer()).isEqualTo(SenseData.fieldPointer(true, 2, -1));
            assertThat(h.out(writeAtomic(8, 3, 0), new byte[3 * BLOCK]).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            assertThat(h.out(writeAtomic(8, 10, 0), new byte[10 * BLOCK]).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            assertThat(h.out(writeAtomic(8, 4, 1), data).fieldPointer()).isEqualTo(SenseData.fieldPointer(true, 10, -1));
            assertThat(h.out(writeAtomic(BLOCKS - 2, 4, 0), data).ascAscq()).isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
            assertThat(h.fabric.run(h.session, 0, writeAtomic(0, 0, 0), 0, TargetCommand.DIR_NONE, null).status())
                    .isEqualTo(ScsiStatus.GOOD);
        }
    }
}
