package io.hostwide.tcm;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.backstore.FileBackstore;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.Backstore;
import io.hostwide.tcm.spi.Fabric;
import io.hostwide.tcm.spi.TargetCommand;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.hostwide.tcm.Harness.BLOCK;
import static io.hostwide.tcm.Harness.cdb;
import static org.assertj.core.api.Assertions.assertThat;

/** The file backstore behind the device's bounded I/O queue: commands complete on I/O threads, never inline. */
class FileBackstoreTest {

    @Test
    void writeReadSyncAndASubBlockUnmapZeroes(@TempDir Path dir) throws IOException {
        FileBackstore file = new FileBackstore(dir.resolve("lun0.img"), 1 << 20, BLOCK, true);
        try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true), file)) {
            byte[] data = Harness.pattern(8 * BLOCK, 5);
            assertThat(h.out(Harness.write10(100, 8), data).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(100, 8), 8 * BLOCK).data()).isEqualTo(data);
            assertThat(h.none(cdb(0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            byte[] list = ProvisioningTest.unmapList(100, 4);
            assertThat(h.out(ProvisioningTest.unmap(list.length), list).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(100, 4), 4 * BLOCK).data()).containsOnly(0);
            byte[] st = ProvisioningTest.lbaStatus(h, 100, 24);
            // 4 blocks of 512 bytes are less than a filesystem block: zeroed, still allocated, "mapped or unknown"
            assertThat(st[20] & 0x0F).isZero();
            assertThat(h.none(cdb(0x34, 0, 0, 0, 0, 0, 0, 0, 1, 0)).status()).isEqualTo(ScsiStatus.GOOD); // not cached
        }
        FileBackstore again = new FileBackstore(dir.resolve("lun0.img"), 0, BLOCK, false);
        ByteBuffer b = ByteBuffer.allocate(4 * BLOCK);
        again.read(104, b);
        assertThat(b.array()).isEqualTo(java.util.Arrays.copyOfRange(Harness.pattern(8 * BLOCK, 5), 4 * BLOCK, 8 * BLOCK));
        assertThat(again.supportsUnmap()).isFalse();
        again.close();
    }

    /** Issue 3 item 4: UNMAP on a thin file deallocates, and GET LBA STATUS says so (SBC-4 §5.8, §5.31). */
    @Test
    void unmapThroughTheCoreDeallocatesAndGetLbaStatusReportsIt(@TempDir Path dir) throws IOException {
        FileBackstore file = new FileBackstore(dir.resolve("thin.img"), 1 << 20, BLOCK, true);
        Assumptions.assumeTrue(file.deallocates() && probePunch(file), () -> "cannot punch holes: " + file.describe());
        int g = file.unmapGranularityBlocks();
        try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true), file)) {
            byte[] rc = h.in(cdb(0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0), 32).data();
            assertThat(rc[14] & 0xC0).as("LBPME | LBPRZ").isEqualTo(0xC0);
            byte[] data = Harness.pattern(64 * BLOCK, 9);
            assertThat(h.out(Harness.write10(0, 64), data).status()).isEqualTo(ScsiStatus.GOOD);
            byte[] list = ProvisioningTest.unmapList(g, 2L * g);
            assertThat(h.out(ProvisioningTest.unmap(list.length), list).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(g, 2 * g), 2 * g * BLOCK).data()).containsOnly(0);

            byte[] st = ProvisioningTest.lbaStatus(h, 0, 8 + 4 * 16);
            assertThat(BigEndian.u32(st, 0)).as("four descriptors").isEqualTo(4 + 4 * 16);
            assertDescriptor(st, 0, 0, g, 0);
            assertDescriptor(st, 1, g, 2L * g, 1); // punched
            assertDescriptor(st, 2, 3L * g, 64 - 3L * g, 0);
            assertDescriptor(st, 3, 64, Harness.BLOCKS - 64, 1); // never written: the file was extended sparsely
        }
    }

    /** Without native hole support (Java 21, forced here) UNMAP zeroes and every block stays "mapped or unknown". */
    @Test
    void theFallbackZeroesAndReportsMappedThroughTheCore(@TempDir Path dir) throws IOException {
        FileBackstore file = new FileBackstore(dir.resolve("portable.img"), 1 << 20, BLOCK,
                FileBackstore.Options.of(true).nativeHoles(false));
        try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true), file)) {
            assertThat(h.out(Harness.write10(0, 64), Harness.pattern(64 * BLOCK, 3)).status()).isEqualTo(ScsiStatus.GOOD);
            byte[] list = ProvisioningTest.unmapList(0, 64);
            assertThat(h.out(ProvisioningTest.unmap(list.length), list).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(0, 64), 64 * BLOCK).data()).containsOnly(0);
            byte[] st = ProvisioningTest.lbaStatus(h, 0, 8 + 4 * 16);
            assertThat(BigEndian.u32(st, 0)).isEqualTo(4 + 16);
            assertDescriptor(st, 0, 0, Harness.BLOCKS, 0);
        }
    }

    private static boolean probePunch(FileBackstore f) throws IOException {
        f.write(0, java.nio.ByteBuffer.allocate(f.unmapGranularityBlocks() * BLOCK), false);
        f.unmap(0, f.unmapGranularityBlocks()); // EOPNOTSUPP here turns deallocates() off
        return f.deallocates();
    }

    private static void assertDescriptor(byte[] st, int i, long lba, long blocks, int status) {
        int p = 8 + 16 * i;
        assertThat(BigEndian.s64(st, p)).as("descriptor %d lba", i).isEqualTo(lba);
        assertThat(BigEndian.u32(st, p + 8)).as("descriptor %d blocks", i).isEqualTo(blocks);
        assertThat(st[p + 12] & 0x0F).as("descriptor %d status", i).isEqualTo(status);
    }

    @Test
    void completionRunsOnAnIoThreadNotTheSubmitter(@TempDir Path dir) throws Exception {
        // without non-blocking reads: a read of a cached page would complete on the submitter (NowaitReadTest)
        FileBackstore file = new FileBackstore(dir.resolve("lun1.img"), 1 << 20, BLOCK,
                FileBackstore.Options.of(false).nowaitReads(false));
        try (Harness h = new Harness(new DeviceAttributes(), file)) {
            Thread submitter = Thread.currentThread();
            Thread[] completer = new Thread[1];
            Fabric f = new Fabric() {
                @Override public int protocolIdentifier() { return 5; }
                @Override public void complete(TargetCommand cmd) {
                    completer[0] = Thread.currentThread();
                    cmd.release();
                }
            };
            Session s = h.core.openSession(h.port, f, "iqn.x:y", "iqn.x:y,i,0x1");
            TargetCommand c = s.newCommand().setup(0, Harness.read10(0, 1), 0, 10, TaskAttribute.SIMPLE, 1, BLOCK,
                    TargetCommand.DIR_READ);
            s.submit(c);
            for (int i = 0; i < 500 && completer[0] == null; i++) {
                Thread.sleep(10);
            }
            assertThat(completer[0]).isNotNull().isNotSameAs(submitter);
            assertThat(completer[0].getName()).contains("-io-");
        }
    }

    /** A blocking backstore whose reads wait on a latch: fills the I/O queue to its depth deterministically. */
    static final class GatedBackstore implements Backstore {
        final CountDownLatch gate = new CountDownLatch(1);

        @Override public int blockSize() { return BLOCK; }
        @Override public long blockCount() { return 64; }
        @Override public boolean blocking() { return true; }
        @Override public void read(long lba, ByteBuffer dst) {
            try {
                gate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            dst.position(dst.limit());
        }
        @Override public void write(long lba, ByteBuffer src, boolean fua) { src.position(src.limit()); }
        @Override public void flush() {}
        @Override public boolean supportsUnmap() { return false; }
        @Override public boolean unmapReturnsZeros() { return true; }
        @Override public void unmap(long lba, long blocks) {}
        @Override public long provisioningRun(long lba, long maxBlocks) { return maxBlocks; }
        @Override public String describe() { return "gated"; }
        @Override public void close() {}
    }

    @Test
    void aFullQueueAnswersTaskSetFullAndDrainsAfterwards() throws Exception {
        GatedBackstore gated = new GatedBackstore();
        try (Harness h = new Harness(new DeviceAttributes().queueDepth(4).ioThreads(2), gated)) {
            List<CompletableFuture<TestFabric.Result>> inFlight = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                inFlight.add(h.fabric.start(h.session, 0, Harness.read10(i, 1), TaskAttribute.SIMPLE, BLOCK,
                        TargetCommand.DIR_READ, null));
            }
            TestFabric.Result full = h.in(Harness.read10(5, 1), BLOCK);
            assertThat(full.status()).isEqualTo(ScsiStatus.TASK_SET_FULL);
            assertThat(full.sense()).isEmpty();
            // commands that do not touch the backstore are not queued
            assertThat(h.in(cdb(0x12, 0, 0, 0, 36, 0), 36).status()).isEqualTo(ScsiStatus.GOOD);
            gated.gate.countDown();
            for (CompletableFuture<TestFabric.Result> f : inFlight) {
                assertThat(f.get(30, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
            }
            assertThat(h.core.ioQueue(h.device).inFlight()).isZero();
            assertThat(h.in(Harness.read10(5, 1), BLOCK).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    /**
     * A response means its queue place is free: at queue_depth 1, a command sent as soon as the previous one's
     * status arrived never meets TASK SET FULL (the place used to be given back only after the response went out).
     */
    @Test
    void aCommandSentOnThePreviousResponseFindsItsQueuePlaceFree() throws Exception {
        GatedBackstore open = new GatedBackstore();
        open.gate.countDown();
        try (Harness h = new Harness(new DeviceAttributes().queueDepth(1).ioThreads(1), open)) {
            for (int i = 0; i < 2000; i++) {
                assertThat(h.in(Harness.read10(i % 64, 1), BLOCK).status()).as("command %d", i)
                        .isEqualTo(ScsiStatus.GOOD);
            }
        }
    }

    @Test
    void fileSizeIsRoundedDownToBlocks(@TempDir Path dir) throws IOException {
        try (FileBackstore f = new FileBackstore(dir.resolve("odd.img"), 10 * BLOCK + 100, BLOCK, false)) {
            assertThat(f.blockCount()).isEqualTo(10);
            ByteBuffer z = ByteBuffer.allocate(BLOCK);
            f.read(9, z);
            assertThat(z.array()).containsOnly(0);
        }
    }
}
