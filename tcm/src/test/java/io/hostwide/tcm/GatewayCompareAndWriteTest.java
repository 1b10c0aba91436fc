package io.hostwide.tcm;

import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.InMemoryReservationStore;
import io.hostwide.tcm.spi.Backstore;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * COMPARE AND WRITE through two gateways that hand the (fake) RBD lock back and forth, as libiscsi's multipath
 * suite does in the rbd2gw conformance run: every compare-and-write and write must reach the storage while its
 * gateway holds the lock. One that reaches it after its gateway lent the lock is what librbd answers EROFS (the
 * conformance log's "compare_and_write answered EROFS after this gateway handed the lock over").
 *
 * <p>Regression test for that: a gateway taking the lock checked that it held it outside its monitor, then
 * published itself the holder inside it; a handover asked in between (its writes parked, the asker already
 * waiting) ran first and released the lock, and the writes were then admitted to a lock the other gateway held
 * (30 of 40 COMPARE AND WRITEs through gw-a here before the fix). The taker now re-checks inside the monitor.
 */
class GatewayCompareAndWriteTest {

    /** RAM storage shared by both gateways that records every medium write made without its gateway's lock. */
    static final class LockCheckingBackstore implements Backstore {
        private final RamBackstore ram;
        private final GatewayAluaTest.FakeImage image;
        private final String me;
        final Queue<String> withoutLock;

        LockCheckingBackstore(RamBackstore ram, GatewayAluaTest.FakeImage image, String me, Queue<String> withoutLock) {
            this.ram = ram;
            this.image = image;
            this.me = me;
            this.withoutLock = withoutLock;
        }

        private void check(String what, long lba) {
            synchronized (image) {
                if (!me.equals(image.holder)) {
                    withoutLock.add(what + " at LBA " + lba + " through " + me + " while " + image.holder
                            + " held the lock");
                }
            }
            Thread.yield(); // widen the window a little: the lock may be asked for meanwhile
        }

        @Override public int blockSize() { return ram.blockSize(); }
        @Override public long blockCount() { return ram.blockCount(); }
        @Override public boolean blocking() { return true; } // on the device's I/O queue, as RBD's compare_and_write
        @Override public void read(long lba, ByteBuffer dst) { ram.read(lba, dst); }

        @Override
        public void write(long lba, ByteBuffer src, boolean fua) throws java.io.IOException {
            check("write", lba);
            ram.write(lba, src, fua);
        }

        @Override public boolean nativeCompareAndWrite(int bytes) { return bytes == ram.blockSize(); }

        @Override
        public long compareAndWrite(long lba, ByteBuffer verify, ByteBuffer data, boolean fua)
                throws java.io.IOException {
            check("compare_and_write", lba);
            synchronized (ram) {
                ByteBuffer cur = ByteBuffer.allocate(verify.remaining());
                ram.read(lba, cur);
                for (int i = 0; i < cur.capacity(); i++) {
                    if (cur.get(i) != verify.get(verify.position() + i)) {
                        return i;
                    }
                }
                ram.write(lba, data, fua);
            }
            return -1;
        }

        @Override public void flush() {}
        @Override public boolean supportsUnmap() { return false; }
        @Override public boolean unmapReturnsZeros() { return true; }
        @Override public void unmap(long lba, long blocks) {}
        @Override public long provisioningRun(long lba, long maxBlocks) { return maxBlocks; }
        @Override public String describe() { return "lock-checking(" + me + ")"; }
        @Override public void close() {}
    }

    /** COMPARE AND WRITE (SBC-4 §5.2) of one block at {@code lba}: 0x89, LBA in bytes 2..9, 1 block in byte 13. */
    static byte[] caw16(long lba) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x89;
        for (int i = 0; i < 8; i++) {
            c[2 + i] = (byte) (lba >>> (56 - 8 * i));
        }
        c[13] = 1;
        return c;
    }

    @Test
    void compareAndWritesOnBothGatewaysReachTheStorageOnlyUnderTheLock() throws Exception {
        InMemoryReservationStore cluster = new InMemoryReservationStore();
        GatewayAluaTest.FakeImage image = new GatewayAluaTest.FakeImage();
        RamBackstore ram = new RamBackstore(Harness.BLOCKS * Harness.BLOCK, Harness.BLOCK);
        Queue<String> withoutLock = new ConcurrentLinkedQueue<>();
        try (GatewayHandoverTest.AluaGateway a = new GatewayHandoverTest.AluaGateway(cluster, image, "gw-a", 1,
                new LockCheckingBackstore(ram, image, "gw-a", withoutLock));
             GatewayHandoverTest.AluaGateway b = new GatewayHandoverTest.AluaGateway(cluster, image, "gw-b", 2,
                     new LockCheckingBackstore(ram, image, "gw-b", withoutLock))) {
            a.alua.poll();
            b.alua.poll();
            Gateway.Path pa = a.g.open("iqn.2026-12.io.hostwide:host1");
            Gateway.Path pb = b.g.open("iqn.2026-12.io.hostwide:host2");
            pa.drainUnitAttentions();
            pb.drainUnitAttentions();
            // two initiators per gateway, each on its own block; each CAW's verify data is the block's last write
            List<CompletableFuture<Integer>> runs = List.of(
                    CompletableFuture.supplyAsync(() -> caws(pa, 10, 20)),
                    CompletableFuture.supplyAsync(() -> caws(pa, 11, 20)),
                    CompletableFuture.supplyAsync(() -> caws(pb, 12, 20)),
                    CompletableFuture.supplyAsync(() -> caws(pb, 13, 20)));
            for (CompletableFuture<Integer> f : runs) {
                assertThat(f.get(120, TimeUnit.SECONDS)).isEqualTo(20);
            }
            assertThat(withoutLock).as("medium writes that reached the storage without the lock").isEmpty();
            assertThat(image.breaks).as("handed over, nobody fenced").isZero();
        }
    }

    /** {@code n} COMPARE AND WRITEs of block {@code lba}, each comparing with the previous one's data. */
    private static int caws(Gateway.Path p, long lba, int n) {
        byte[] current = new byte[Harness.BLOCK]; // a fresh RAM block reads zeros
        int good = 0;
        for (int i = 0; i < n; i++) {
            byte[] next = Harness.pattern(Harness.BLOCK, (int) lba * 100 + i);
            byte[] data = new byte[2 * Harness.BLOCK];
            System.arraycopy(current, 0, data, 0, Harness.BLOCK);
            System.arraycopy(next, 0, data, Harness.BLOCK, Harness.BLOCK);
            TestFabric.Result r = p.out(caw16(lba), data);
            if (r.status() != ScsiStatus.GOOD) {
                throw new AssertionError("COMPARE AND WRITE " + i + " at LBA " + lba + " ended status "
                        + r.status() + " " + Integer.toHexString(r.ascAscq()));
            }
            current = next;
            good++;
        }
        return good;
    }
}
