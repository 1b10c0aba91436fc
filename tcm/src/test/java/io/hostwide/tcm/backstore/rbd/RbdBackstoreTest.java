package io.hostwide.tcm.backstore.rbd;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.Harness;
import io.hostwide.tcm.TestFabric;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.AsyncBackstore;
import io.hostwide.tcm.spi.SharedOwnership;
import io.hostwide.tcm.spi.TargetCommand;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rbd backstore under the target core, against the real single-node cluster of bin/ceph-test-cluster (issue
 * 15): raw CDBs in, status, sense and data out. Each test makes its own image. The dead-cluster test stops the
 * daemons, so it runs last.
 */
@ExtendWith(CephTestCluster.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RbdBackstoreTest {
    private static final int BS = 512;
    private static final long SCAN_BLOCKS = AllocatedExtents.SCAN_BYTES / BS;

    private static AsyncBackstore open(CephTestCluster c, String image) throws Exception {
        return Rbd.open(RbdConfig.of(c.conf(), "rbd", image), BS);
    }

    private static Harness harness(CephTestCluster c, long sizeMiB) throws Exception {
        return new Harness(new DeviceAttributes().thinProvisioning(true), open(c, c.createImage("t", sizeMiB)), false);
    }

    private static byte[] write16(long lba, int blocks, boolean fua) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x8A;
        c[1] = (byte) (fua ? 0x08 : 0);
        BigEndian.put64(c, 2, lba);
        BigEndian.put32(c, 10, blocks);
        return c;
    }

    @Test
    @Order(1)
    void readWriteFuaAndSynchronizeCache(CephTestCluster c) throws Exception {
        try (Harness h = harness(c, 64)) {
            assertThat(h.device.blockCount()).isEqualTo((64L << 20) / BS);
            byte[] a = Harness.pattern(64 * BS, 1);
            assertThat(h.out(Harness.write10(100, 64), a).status()).isEqualTo(ScsiStatus.GOOD);
            byte[] b = Harness.pattern(8 * BS, 2);
            assertThat(h.out(write16(8191, 8, true), b).status()).isEqualTo(ScsiStatus.GOOD); // FUA, across an object
            // SBC-4 §5.26 SYNCHRONIZE CACHE (10), whole medium
            assertThat(h.none(Harness.cdb(0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(100, 64), 64 * BS).data()).isEqualTo(a);
            assertThat(h.in(Harness.read10(8191, 8), 8 * BS).data()).isEqualTo(b);
            assertThat(h.in(Harness.read10(5000, 4), 4 * BS).data()).as("never written").isEqualTo(new byte[4 * BS]);
            // the last block, then one past the end: LBA OUT OF RANGE, never sent to librbd
            long last = h.device.blockCount() - 1;
            byte[] one = Harness.pattern(BS, 9);
            assertThat(h.out(write16(last, 1, false), one).status()).isEqualTo(ScsiStatus.GOOD);
            TestFabric.Result past = h.in(read16(last, 2), 2 * BS);
            assertThat(past.senseKey()).isEqualTo(SenseKey.ILLEGAL_REQUEST);
            assertThat(past.ascAscq()).isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
        }
    }

    /**
     * librbd's cache is off unless the config's options turn it on (as tcmu-runner, issue 15): a gateway's
     * completed write is then on the OSDs, so FUA is the write alone; with the cache on, FUA still means write and
     * flush. Either way a FUA write, and one followed by SYNCHRONIZE CACHE, reads back.
     */
    @Test
    @Order(1)
    void librbdCacheIsOffUnlessAskedForAndFuaWritesReadBackEitherWay(CephTestCluster c) throws Exception {
        String name = c.createImage("cache", 16);
        for (boolean cacheOn : new boolean[] {false, true}) {
            RbdConfig config = new RbdConfig(c.conf(), "rbd", name, null, null, RbdConfig.DEFAULT_OP_TIMEOUT_SECONDS,
                    cacheOn ? Map.of("rbd_cache", "true") : Map.of(), RbdConfig.DEFAULT_QUEUE_DEPTH);
            AsyncBackstore store = Rbd.open(config, BS);
            try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true), store, false)) {
                assertThat(store.describe().contains("librbd cache on")).as(store.describe()).isEqualTo(cacheOn);
                byte[] a = Harness.pattern(16 * BS, cacheOn ? 3 : 4);
                assertThat(h.out(write16(8184, 16, true), a).status()).isEqualTo(ScsiStatus.GOOD); // across an object
                assertThat(h.in(read16(8184, 16), 16 * BS).data()).isEqualTo(a);
                byte[] b = Harness.pattern(8 * BS, cacheOn ? 5 : 6);
                assertThat(h.out(write16(40, 8, false), b).status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(h.none(Harness.cdb(0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(h.in(read16(40, 8), 8 * BS).data()).isEqualTo(b);
            }
        }
    }

    private static byte[] read16(long lba, int blocks) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x88;
        BigEndian.put64(c, 2, lba);
        BigEndian.put32(c, 10, blocks);
        return c;
    }

    @Test
    @Order(2)
    void unmapReadsBackZerosAlsoForPartialObjects(CephTestCluster c) throws Exception {
        try (Harness h = harness(c, 16)) {
            byte[] data = Harness.pattern(64 * BS, 3);
            assertThat(h.out(Harness.write10(1000, 64), data).status()).isEqualTo(ScsiStatus.GOOD);
            // SBC-4 §5.31 UNMAP of 10 blocks inside the written 64: a partial-object discard
            byte[] list = new byte[24];
            list[1] = 22;
            list[3] = 16;
            BigEndian.put64(list, 8, 1010);
            BigEndian.put32(list, 16, 10);
            TestFabric.Result unmap = h.out(Harness.cdb(0x42, 0, 0, 0, 0, 0, 0, 0, 24, 0), list);
            assertThat(unmap.status()).as("UNMAP %s", unmap).isEqualTo(ScsiStatus.GOOD);
            byte[] expect = data.clone();
            Arrays.fill(expect, 10 * BS, 20 * BS, (byte) 0);
            assertThat(h.in(Harness.read10(1000, 64), 64 * BS).data()).isEqualTo(expect);
            // READ CAPACITY (16): LBPME and LBPRZ (SBC-4 §5.20.2)
            TestFabric.Result cap = h.in(Harness.cdb(0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0), 32);
            assertThat(cap.data()[14] & 0xC0).isEqualTo(0xC0);
        }
    }

    @Test
    @Order(3)
    void writeSameReplicatesTheBlockAndZeroes(CephTestCluster c) throws Exception {
        try (Harness h = harness(c, 16)) {
            byte[] block = Harness.pattern(BS, 4);
            // SBC-4 §5.50 WRITE SAME (16), 300 blocks
            byte[] ws = new byte[16];
            ws[0] = (byte) 0x93;
            BigEndian.put64(ws, 2, 2000);
            BigEndian.put32(ws, 10, 300);
            assertThat(h.out(ws, block).status()).isEqualTo(ScsiStatus.GOOD);
            byte[] back = h.in(Harness.read10(2000, 300), 300 * BS).data();
            for (int i = 0; i < 300; i++) {
                assertThat(Arrays.copyOfRange(back, i * BS, (i + 1) * BS)).as("block %d", i).isEqualTo(block);
            }
            assertThat(h.in(Harness.read10(2300, 1), BS).data()).isEqualTo(new byte[BS]);
            BigEndian.put32(ws, 10, 100);
            assertThat(h.out(ws, new byte[BS]).status()).isEqualTo(ScsiStatus.GOOD); // zeros
            assertThat(h.in(Harness.read10(2000, 100), 100 * BS).data()).isEqualTo(new byte[100 * BS]);
            assertThat(h.in(Harness.read10(2100, 1), BS).data()).isEqualTo(block);
        }
    }

    @Test
    @Order(4)
    void compareAndWriteMatchesAndMiscomparesWithTheOffset(CephTestCluster c) throws Exception {
        try (Harness h = harness(c, 16)) {
            byte[] old = Harness.pattern(2 * BS, 5);
            assertThat(h.out(Harness.write10(300, 2), old).status()).isEqualTo(ScsiStatus.GOOD);
            byte[] neu = Harness.pattern(2 * BS, 6);
            byte[] caw = new byte[16];
            caw[0] = (byte) 0x89;
            BigEndian.put64(caw, 2, 300);
            caw[13] = 2;
            byte[] both = new byte[4 * BS];
            System.arraycopy(old, 0, both, 0, 2 * BS);
            System.arraycopy(neu, 0, both, 2 * BS, 2 * BS);
            assertThat(h.out(caw, both).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(300, 2), 2 * BS).data()).isEqualTo(neu);
            // the verify data differs from the medium first at byte 700 (two blocks: the core's emulation)
            byte[] stale = neu.clone();
            stale[700] ^= 0x5A;
            System.arraycopy(stale, 0, both, 0, 2 * BS);
            System.arraycopy(old, 0, both, 2 * BS, 2 * BS);
            TestFabric.Result mis = h.out(caw, both);
            // SBC-4 §5.3: MISCOMPARE, MISCOMPARE DURING VERIFY OPERATION, INFORMATION = offset of the first difference
            assertThat(mis.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
            assertThat(mis.senseKey()).isEqualTo(SenseKey.MISCOMPARE);
            assertThat(mis.ascAscq()).isEqualTo(Asc.MISCOMPARE_DURING_VERIFY_OPERATION);
            assertThat(mis.information()).isEqualTo(700);
            assertThat(h.in(Harness.read10(300, 2), 2 * BS).data()).as("nothing written").isEqualTo(neu);

            // one block: librbd's own compare_and_write (atomic across gateways)
            caw[13] = 1;
            byte[] one = new byte[2 * BS];
            System.arraycopy(neu, 0, one, 0, BS);
            byte[] third = Harness.pattern(BS, 8);
            System.arraycopy(third, 0, one, BS, BS);
            assertThat(h.out(caw, one).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(300, 1), BS).data()).isEqualTo(third);
            one[77] = (byte) (third[77] ^ 1);
            System.arraycopy(third, 0, one, 0, 77);
            System.arraycopy(third, 78, one, 78, BS - 78);
            TestFabric.Result mis1 = h.out(caw, one);
            assertThat(mis1.senseKey()).isEqualTo(SenseKey.MISCOMPARE);
            assertThat(mis1.information()).isEqualTo(77);
            assertThat(h.in(Harness.read10(300, 1), BS).data()).isEqualTo(third);

            // the last block of the image, in its last object: librbd 16.2 counts the mismatch offset from the
            // object's start there (libiscsi CompareAndWrite.Miscompare found it: the CAW answered GOOD)
            long last = h.device.blockCount() - 1;
            assertThat(h.out(write16(last, 1, false), third).status()).isEqualTo(ScsiStatus.GOOD);
            BigEndian.put64(caw, 2, last);
            TestFabric.Result mis2 = h.out(caw, one);
            assertThat(mis2.senseKey()).isEqualTo(SenseKey.MISCOMPARE);
            assertThat(mis2.information()).isEqualTo(77);
            assertThat(h.in(read16(last, 1), BS).data()).isEqualTo(third);
        }
    }

    @Test
    @Order(5)
    void extendedCopyAcrossTwoRbdLuns(CephTestCluster c) throws Exception {
        try (Harness h = harness(c, 16)) {
            Device d2 = h.core.addDevice("dev1", open(c, c.createImage("x", 16)), new DeviceAttributes());
            h.port.addLun(1, d2);
            byte[] data = Harness.pattern(40 * BS, 7);
            assertThat(h.out(Harness.write10(100, 40), data).status()).isIn(ScsiStatus.GOOD,
                    ScsiStatus.CHECK_CONDITION); // REPORTED LUNS DATA HAS CHANGED may come first
            assertThat(h.out(Harness.write10(100, 40), data).status()).isEqualTo(ScsiStatus.GOOD);
            byte[] p = xcopyList(h.device.naa(), d2.naa(), 40, 100, 7);
            assertThat(h.out(xcopyCdb(p.length), p).status()).isEqualTo(ScsiStatus.GOOD);
            TestFabric.Result r;
            do { // drain the unit attentions of the new LUN
                r = h.fabric.run(h.session, LunAddress.encode(1), Harness.read10(7, 40), 40 * BS,
                        TargetCommand.DIR_READ, null);
            } while (r.status() == ScsiStatus.CHECK_CONDITION && r.senseKey() == SenseKey.UNIT_ATTENTION);
            assertThat(r.data()).isEqualTo(data);
        }
    }

    private static byte[] xcopyCdb(int length) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x83;
        BigEndian.put32(c, 10, length);
        return c;
    }

    /** SPC-4 §6.4: LID1 list, two E4h (NAA) target descriptors, one block→block (02h) segment. */
    private static byte[] xcopyList(long srcNaa, long dstNaa, int blocks, long srcLba, long dstLba) {
        byte[] p = new byte[16 + 64 + 28];
        p[0] = 1;
        BigEndian.put16(p, 2, 64);
        BigEndian.put32(p, 8, 28);
        long[] naas = {srcNaa, dstNaa};
        for (int i = 0; i < 2; i++) {
            int off = 16 + 32 * i;
            p[off] = (byte) 0xE4;
            p[off + 4] = 0x01;
            p[off + 5] = 0x03;
            p[off + 7] = 8;
            BigEndian.put64(p, off + 8, naas[i]);
            BigEndian.put16(p, off + 30, BS);
        }
        int s = 16 + 64;
        p[s] = 0x02;
        BigEndian.put16(p, s + 2, 0x18);
        BigEndian.put16(p, s + 4, 0);
        BigEndian.put16(p, s + 6, 1);
        BigEndian.put16(p, s + 10, blocks);
        BigEndian.put64(p, s + 12, srcLba);
        BigEndian.put64(p, s + 20, dstLba);
        return p;
    }

    @Test
    @Order(6)
    void resizeByAnotherClientRaisesCapacityDataHasChanged(CephTestCluster c) throws Exception {
        String image = c.createImage("r", 16);
        try (Harness h = new Harness(new DeviceAttributes(), open(c, image), false)) {
            assertThat(h.in(Harness.read10(0, 1), BS).status()).isEqualTo(ScsiStatus.GOOD);
            c.run(List.of("rbd", "-c", c.conf(), "resize", "--size", "32M", "rbd/" + image), 120);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (h.device.blockCount() != (32L << 20) / BS && System.nanoTime() < deadline) {
                Thread.sleep(50); // polling for something that must happen, with a generous deadline
            }
            assertThat(h.device.blockCount()).isEqualTo((32L << 20) / BS);
            TestFabric.Result ua = h.in(Harness.read10(0, 1), BS);
            assertThat(ua.senseKey()).isEqualTo(SenseKey.UNIT_ATTENTION);
            assertThat(ua.ascAscq()).isEqualTo(Asc.CAPACITY_DATA_HAS_CHANGED);
            assertThat(h.in(Harness.read10((32L << 20) / BS - 1, 1), BS).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    @Test
    @Order(7)
    void sixtyFourCommandsInFlightKeepTheirData(CephTestCluster c) throws Exception {
        try (Harness h = harness(c, 64)) {
            int qd = 64;
            int blocks = 16;
            for (int round = 0; round < 4; round++) {
                List<CompletableFuture<TestFabric.Result>> writes = new ArrayList<>();
                for (int i = 0; i < qd; i++) {
                    writes.add(h.fabric.start(h.session, 0, Harness.write10((long) i * 97 * blocks, blocks),
                            TaskAttribute.SIMPLE, blocks * BS, TargetCommand.DIR_WRITE,
                            Harness.pattern(blocks * BS, round * 1000 + i)));
                }
                for (CompletableFuture<TestFabric.Result> w : writes) {
                    assertThat(w.get(120, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
                }
                List<CompletableFuture<TestFabric.Result>> reads = new ArrayList<>();
                for (int i = 0; i < qd; i++) {
                    reads.add(h.fabric.start(h.session, 0, Harness.read10((long) i * 97 * blocks, blocks),
                            TaskAttribute.SIMPLE, blocks * BS, TargetCommand.DIR_READ, null));
                }
                for (int i = 0; i < qd; i++) {
                    TestFabric.Result r = reads.get(i).get(120, TimeUnit.SECONDS);
                    assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
                    assertThat(r.data()).as("round %d command %d", round, i)
                            .isEqualTo(Harness.pattern(blocks * BS, round * 1000 + i));
                }
            }
        }
    }

    /** GET LBA STATUS (16) at {@code lba}: the descriptors, each {lba, blocks, provisioning status}. */
    private static List<long[]> lbaStatus(Harness h, long lba) {
        byte[] cdb = new byte[16];
        cdb[0] = (byte) 0x9E;
        cdb[1] = 0x12;
        BigEndian.put64(cdb, 2, lba);
        BigEndian.put32(cdb, 10, 8 + 16 * 16);
        TestFabric.Result r = h.in(cdb, 8 + 16 * 16);
        assertThat(r.status()).as("%s", r).isEqualTo(ScsiStatus.GOOD);
        byte[] d = r.data();
        List<long[]> out = new ArrayList<>();
        for (int p = 8; p + 16 <= 4 + BigEndian.u32(d, 0); p += 16) {
            out.add(new long[] {BigEndian.s64(d, p), BigEndian.u32(d, p + 8), d[p + 12] & 0x0F});
        }
        return out;
    }

    @Test
    @Order(8)
    void getLbaStatusReportsWhatWasWrittenAndWhatWasDiscarded(CephTestCluster c) throws Exception {
        int perObject = (4 << 20) / BS; // rbd create's default 4 MiB objects
        try (Harness h = harness(c, 64)) {
            // SBC-4 §5.8: provisioning status 0 mapped, 1 deallocated; a fresh image is all deallocated, one
            // descriptor (rbd create's default features have fast-diff: the object map answers)
            assertThat(lbaStatus(h, 0)).hasSize(1);
            assertThat(lbaStatus(h, 0).get(0)).containsExactly(0, h.device.blockCount(), 1);
            assertThat(h.out(Harness.write10(100, 64), Harness.pattern(64 * BS, 5)).status())
                    .isEqualTo(ScsiStatus.GOOD);
            long third = 2L * perObject;
            assertThat(h.out(Harness.write10(third + 10, 1), Harness.pattern(BS, 6)).status())
                    .isEqualTo(ScsiStatus.GOOD);
            // what was written is mapped; RBD may report more of a written object than was written (16.2 reports an
            // object from its start to its end), never less; the untouched second object is deallocated
            long[] d = lbaStatus(h, 100).get(0);
            assertThat(d[2]).isEqualTo(0);
            assertThat(d[1]).isBetween(64L, (long) perObject - 100);
            d = lbaStatus(h, perObject).get(0);
            assertThat(d).containsExactly(perObject, perObject, 1);
            assertThat(lbaStatus(h, third + 10).get(0)[2]).isEqualTo(0);
            // UNMAP the whole third object (SBC-4 §5.31): deallocated again
            byte[] list = new byte[24];
            list[1] = 22;
            list[3] = 16;
            BigEndian.put64(list, 8, third);
            BigEndian.put32(list, 16, perObject);
            assertThat(h.out(Harness.cdb(0x42, 0, 0, 0, 0, 0, 0, 0, 24, 0), list).status()).isEqualTo(ScsiStatus.GOOD);
            d = lbaStatus(h, perObject).get(0);
            assertThat(d[2]).isEqualTo(1);
            assertThat(d[0] + d[1]).as("deallocated through the discarded object").isGreaterThanOrEqualTo(third + perObject);
            // descriptors follow each other to the end of the LUN
            long last = h.device.blockCount() - 1;
            assertThat(h.out(Harness.write10(last, 1), Harness.pattern(BS, 7)).status()).isEqualTo(ScsiStatus.GOOD);
            List<long[]> all = lbaStatus(h, perObject);
            long at = perObject;
            for (long[] x : all) {
                assertThat(x[0]).isEqualTo(at);
                assertThat(x[1]).isPositive();
                at += x[1];
            }
            assertThat(at).isEqualTo(last + 1);
            assertThat(all.get(0)[2]).isEqualTo(1);
            assertThat(all.get(all.size() - 1)[2]).as("the last block").isEqualTo(0);
        }
    }

    @Test
    @Order(8)
    void withoutFastDiffOneGetLbaStatusScansABoundedRange(CephTestCluster c) throws Exception {
        String image = "nofastdiff-" + System.nanoTime();
        c.run(List.of("rbd", "-c", c.conf(), "create", "--size", "64M", "--image-feature", "layering,exclusive-lock",
                "rbd/" + image), 120);
        try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true), open(c, image), false)) {
            // without the object map every object is asked about: one query looks at SCAN_BYTES at most, and the
            // next descriptor continues where it stopped
            List<long[]> d = lbaStatus(h, 0);
            long at = 0;
            for (long[] x : d) {
                assertThat(x).containsExactly(at, Math.min(SCAN_BLOCKS, h.device.blockCount() - at), 1);
                at += x[1];
            }
            assertThat(at).isEqualTo(h.device.blockCount());
            assertThat(h.out(Harness.write10(SCAN_BLOCKS + 5, 1), Harness.pattern(BS, 8)).status())
                    .isEqualTo(ScsiStatus.GOOD);
            assertThat(lbaStatus(h, SCAN_BLOCKS + 5).get(0)[2]).isEqualTo(0);
            assertThat(lbaStatus(h, 0).get(0)).containsExactly(0, SCAN_BLOCKS, 1);
        }
    }

    /** The backstore's Ceph client address (RbdImage is compiled for Java 22, these tests for 21: reflection). */
    static String clientAddress(AsyncBackstore b) throws Exception {
        Method m = b.getClass().getDeclaredMethod("clientAddress");
        m.setAccessible(true);
        return (String) m.invoke(b);
    }

    @Test
    @Order(9)
    void aFencedGatewayAnswersBusyThenReopensWithANewClient(CephTestCluster c) throws Exception {
        String image = c.createImage("f", 16);
        RbdConfig cfg = new RbdConfig(c.conf(), "rbd", image, null, null, 10, Map.of(), 32);
        AsyncBackstore store = Rbd.open(cfg, BS);
        try (Harness h = new Harness(new DeviceAttributes(), store, false)) {
            byte[] before = Harness.pattern(16 * BS, 11);
            assertThat(h.out(Harness.write10(64, 16), before).status()).isEqualTo(ScsiStatus.GOOD);
            String fenced = clientAddress(store);
            assertThat(fenced).isNotNull();
            // what another gateway does when it breaks this one's lock (tcmu-runner, ceph-iscsi): blocklist it
            c.run(List.of("ceph", "-c", c.conf(), "osd", "blocklist", "add", fenced), 120);
            // tcmu-runner's answer: BUSY, so the initiator retries while the image is reopened with a new client.
            // The blocklist also reaches the image's update watch, whose size refresh then fails: the fence can be
            // noticed and the image reopened (tens of ms when idle) between two of these writes, none of them BUSY
            boolean busy = false;
            boolean reopened = false;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!busy && !reopened && System.nanoTime() < deadline) {
                TestFabric.Result r = h.out(Harness.write10(200, 1), Harness.pattern(BS, 12));
                busy = r.status() == ScsiStatus.BUSY;
                assertThat(r.status()).as("%s", r).isIn(ScsiStatus.GOOD, ScsiStatus.BUSY);
                reopened = !fenced.equals(clientAddress(store));
                if (!busy && !reopened) {
                    Thread.sleep(100); // the OSDs refuse this client once they have the new OSD map
                }
            }
            assertThat(busy || reopened).as("a write after the blocklist answered BUSY, or the image was reopened"
                    + " with a new client before one came").isTrue();
            TestFabric.Result r = null;
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (System.nanoTime() < deadline) {
                r = h.in(Harness.read10(64, 16), 16 * BS);
                if (r.status() == ScsiStatus.GOOD) {
                    break;
                }
                assertThat(r.status()).as("%s", r).isEqualTo(ScsiStatus.BUSY);
                Thread.sleep(200); // polling for the reopen, with a generous deadline
            }
            assertThat(r.status()).as("%s", r).isEqualTo(ScsiStatus.GOOD);
            assertThat(r.data()).as("written before the fence").isEqualTo(before);
            assertThat(clientAddress(store)).isNotEqualTo(fenced);
            byte[] after = Harness.pattern(BS, 13);
            assertThat(h.out(Harness.write10(200, 1), after).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(200, 1), BS).data()).isEqualTo(after);
        }
    }

    /** RbdImage's count of BUSY answers since the current fence (reflection, as {@link #clientAddress}). */
    static long busyAnswers(AsyncBackstore b) throws Exception {
        Method m = b.getClass().getDeclaredMethod("busyAnswersWhileFenced");
        m.setAccessible(true);
        return (long) m.invoke(b);
    }

    /**
     * The EROFS path (issue 15: lock lost → BUSY + reopen): another client holds the exclusive lock in librbd's
     * managed mode (rbd_lock_acquire, as a gateway owner does), so this client's write is refused with EROFS. It is
     * answered BUSY and counted (not logged per command), and once the holder releases the lock the reopened
     * client writes.
     */
    @Test
    @Order(10)
    void aWriteRefusedWithErofsAnswersBusyUntilTheHolderReleases(CephTestCluster c) throws Exception {
        String image = c.createImage("ro", 16);
        RbdConfig cfg = new RbdConfig(c.conf(), "rbd", image, null, null, 10, Map.of(), 8);
        try (AsyncBackstore holder = Rbd.open(cfg, BS);
             Harness h = new Harness(new DeviceAttributes(), Rbd.open(cfg, BS), false)) {
            SharedOwnership lock = ((SharedOwnership.Source) holder).sharedOwnership();
            assertThat(lock.tryTake()).as("the holder takes the lock").isTrue();
            TestFabric.Result r = h.out(Harness.write10(8, 1), Harness.pattern(BS, 21));
            assertThat(r.status()).as("a write while another client holds the lock: %s", r).isEqualTo(ScsiStatus.BUSY);
            AsyncBackstore refused = (AsyncBackstore) h.device.backstore();
            TestFabric.Result again = h.out(Harness.write10(8, 1), Harness.pattern(BS, 21));
            assertThat(again.status()).isEqualTo(ScsiStatus.BUSY);
            lock.release();
            assertThat(lock.isOwner()).isFalse();
            byte[] data = Harness.pattern(BS, 22);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            long busy = 0;
            while (System.nanoTime() < deadline) {
                r = h.out(Harness.write10(8, 1), data);
                if (r.status() == ScsiStatus.GOOD) {
                    break;
                }
                assertThat(r.status()).as("%s", r).isEqualTo(ScsiStatus.BUSY);
                busy = Math.max(busy, busyAnswers(refused));
                Thread.sleep(200); // the reopen backs off up to 30 s between attempts
            }
            assertThat(r.status()).as("after the holder released the lock: %s", r).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(8, 1), BS).data()).isEqualTo(data);
            System.out.println("EROFS: BUSY answers counted while fenced (at most seen): " + busy);
        }
    }

    /** Gateway lifecycle (issue 16): each open image is among its header's watchers, by its RADOS instance id. */
    @Test
    @Order(11)
    void everyOpenClientIsALiveWatcherAndLeavesWhenClosed(CephTestCluster c) throws Exception {
        String image = c.createImage("w", 8);
        RbdConfig cfg = new RbdConfig(c.conf(), "rbd", image, null, null, 10, Map.of(), 8);
        try (AsyncBackstore a = Rbd.open(cfg, BS)) {
            SharedOwnership oa = ((SharedOwnership.Source) a).sharedOwnership();
            String idB;
            try (AsyncBackstore b = Rbd.open(cfg, BS)) {
                SharedOwnership ob = ((SharedOwnership.Source) b).sharedOwnership();
                idB = ob.clientId();
                assertThat(idB).isNotEqualTo(oa.clientId());
                assertThat(oa.liveClients()).contains(oa.clientId(), idB);
                ob.put("hostwide.test", "x");
                assertThat(oa.entries("hostwide.")).containsEntry("hostwide.test", "x");
                // rbd_metadata_list starts after its start key: a prefix that is a whole key must still find it
                // (the ALUA policy reads hostwide.alua.owner so; it missed it and flipped Active/Optimized)
                assertThat(oa.entries("hostwide.test")).containsEntry("hostwide.test", "x");
                ob.remove("hostwide.test");
                ob.remove("hostwide.test"); // absent: no error
                assertThat(oa.entries("hostwide.")).doesNotContainKey("hostwide.test");
            }
            assertThat(oa.liveClients()).as("closed: its watch is gone").contains(oa.clientId())
                    .doesNotContain(idB);
        }
    }

    @Test
    @Order(100)
    void aDeadClusterAnswersBusyInsteadOfHanging(CephTestCluster c) throws Exception {
        String image = c.createImage("d", 16);
        RbdConfig cfg = new RbdConfig(c.conf(), "rbd", image, null, null, 3, Map.of(), 32);
        try (Harness h = new Harness(new DeviceAttributes(), Rbd.open(cfg, BS), false)) {
            // a read first: the write below must also take RBD's exclusive lock, which waits for the monitors, past
            // librados' op timeout; the backstore's watchdog answers it
            assertThat(h.in(Harness.read10(0, 1), BS).status()).isEqualTo(ScsiStatus.GOOD);
            c.stopDaemons(); // for good: a later test gets a fresh cluster
            {
                long t0 = System.nanoTime();
                TestFabric.Result r = h.fabric.start(h.session, 0, Harness.write10(0, 1), TaskAttribute.SIMPLE,
                        BS, TargetCommand.DIR_WRITE, new byte[BS]).get(120, TimeUnit.SECONDS);
                // tcmu-runner's mapping: ETIMEDOUT → BUSY, the initiator retries
                assertThat(r.status()).as("%s after %d ms", r, (System.nanoTime() - t0) / 1_000_000)
                        .isEqualTo(ScsiStatus.BUSY);
                r = h.fabric.start(h.session, 0, Harness.read10(8, 1), TaskAttribute.SIMPLE, BS,
                        TargetCommand.DIR_READ, null).get(120, TimeUnit.SECONDS);
                assertThat(r.status()).isEqualTo(ScsiStatus.BUSY);
            }
        }
    }
}
