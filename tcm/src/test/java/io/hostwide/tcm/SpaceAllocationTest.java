package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.backstore.RamBudget;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.Backstore;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.hostwide.tcm.Harness.cdb;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A thin RAM LUN whose budget is spent answers every command that would allocate with DATA PROTECT / SPACE
 * ALLOCATION FAILED WRITE PROTECT (SBC-4 §4.7.3.6), while reads, writes into allocated blocks and other LUNs keep
 * working, and a write succeeds again once UNMAP gave room back (issue 12: the heap filled instead, and the 16 TiB
 * case hung). An OutOfMemoryError thrown by a backstore fails only its command.
 */
class SpaceAllocationTest {
    static final int BLOCK = 512;
    static final int PAGE_BLOCKS = RamBackstore.PAGE_SIZE / BLOCK;

    static Harness lun(String name, RamBudget budget) throws IOException {
        return new Harness(name, new DeviceAttributes().thinProvisioning(true),
                new RamBackstore(1L << 40, BLOCK, budget, false), false);
    }

    static void assertSpaceAllocationFailed(TestFabric.Result r) {
        assertThat(r.status()).as("%s", r).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(r.senseKey()).isEqualTo(SenseKey.DATA_PROTECT);
        assertThat(r.ascAscq()).isEqualTo(Asc.SPACE_ALLOCATION_FAILED_WRITE_PROTECT).isEqualTo(0x2707);
    }

    static byte[] cdb16(int opcode, long lba, int blocks) {
        byte[] c = new byte[16];
        c[0] = (byte) opcode;
        BigEndian.put64(c, 2, lba);
        BigEndian.put32(c, 10, blocks);
        return c;
    }

    @Test
    void aSpentBudgetFailsEveryAllocatingWriteWithSpaceAllocationFailedAndReadsGoOn() throws Exception {
        RamBudget budget = new RamBudget(2L * RamBackstore.PAGE_SIZE);
        try (Harness a = lun("thin-a", budget); Harness b = lun("thin-b", budget)) {
            byte[] data = Harness.pattern(BLOCK, 1);
            assertThat(a.out(Harness.write10(0, 1), data).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(a.out(Harness.write10(PAGE_BLOCKS, 1), data).status()).isEqualTo(ScsiStatus.GOOD);
            long far = 1L << 30;
            TestFabric.Result w = b.out(cdb16(0x8A, far, 1), data); // WRITE(16)
            assertSpaceAllocationFailed(w);
            assertThat(w.information()).isEqualTo(far);
            assertSpaceAllocationFailed(b.out(Harness.write10(5, 1), data));
            assertSpaceAllocationFailed(b.out(cdb(0x2E, 0, 0, 0, 0, 5, 0, 0, 1, 0), data)); // WRITE AND VERIFY(10)
            assertSpaceAllocationFailed(b.out(cdb16(0x93, 9, 4), data)); // WRITE SAME(16) of a non-zero block
            byte[] caw = new byte[2 * BLOCK]; // COMPARE AND WRITE: zeros compare equal, the write must allocate
            System.arraycopy(data, 0, caw, BLOCK, BLOCK);
            byte[] cawCdb = new byte[16];
            cawCdb[0] = (byte) 0x89;
            BigEndian.put64(cawCdb, 2, 7);
            cawCdb[13] = 1;
            assertSpaceAllocationFailed(b.out(cawCdb, caw));
            byte[] orw = cdb16(0x8B, 7, 1); // ORWRITE(16)
            assertSpaceAllocationFailed(b.out(orw, data));
            // WRITE SAME of zeros allocates nothing on a thin LUN: GOOD
            assertThat(b.out(cdb16(0x93, 9, 4), new byte[BLOCK]).status()).isEqualTo(ScsiStatus.GOOD);
            // reads, of written and unwritten blocks, and writes into allocated pages keep working
            assertThat(a.in(Harness.read10(0, 1), BLOCK).data()).isEqualTo(data);
            TestFabric.Result r = b.in(Harness.read10(5, 1), BLOCK);
            assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(r.data()).containsOnly(0);
            assertThat(a.out(Harness.write10(1, 1), data).status()).isEqualTo(ScsiStatus.GOOD);
            // UNMAP on one LUN gives room to the other
            byte[] list = ProvisioningTest.unmapList(0, PAGE_BLOCKS);
            assertThat(a.out(ProvisioningTest.unmap(list.length), list).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.out(Harness.write10(5, 1), data).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.in(Harness.read10(5, 1), BLOCK).data()).isEqualTo(data);
        }
        assertThat(budget.used()).isZero(); // closing the LUNs gave their pages back
    }

    @Test
    void anOutOfMemoryErrorInABackstoreFailsThatCommandOnlyAndTheSessionGoesOn() throws Exception {
        RamBackstore ram = new RamBackstore(1L << 20, BLOCK);
        AtomicBoolean oom = new AtomicBoolean(true);
        Backstore flaky = new Backstore() {
            public int blockSize() { return ram.blockSize(); }
            public long blockCount() { return ram.blockCount(); }
            public boolean blocking() { return false; }
            public void read(long lba, ByteBuffer dst) { ram.read(lba, dst); }
            public void write(long lba, ByteBuffer src, boolean fua) throws IOException {
                if (oom.getAndSet(false)) {
                    throw new OutOfMemoryError("Java heap space (injected)");
                }
                ram.write(lba, src, fua);
            }
            public void flush() { }
            public boolean supportsUnmap() { return true; }
            public boolean unmapReturnsZeros() { return true; }
            public void unmap(long lba, long blocks) { ram.unmap(lba, blocks); }
            public long provisioningRun(long lba, long maxBlocks) { return ram.provisioningRun(lba, maxBlocks); }
            public String describe() { return "oom once"; }
            public void close() { ram.close(); }
        };
        try (Harness h = new Harness("oom-once", new DeviceAttributes(), flaky, false)) {
            byte[] data = Harness.pattern(BLOCK, 2);
            TestFabric.Result failed = h.out(Harness.write10(3, 1), data);
            assertThat(failed.senseKey()).isEqualTo(SenseKey.HARDWARE_ERROR);
            assertThat(failed.ascAscq()).isEqualTo(Asc.INTERNAL_TARGET_FAILURE);
            assertThat(h.out(Harness.write10(3, 1), data).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(3, 1), BLOCK).data()).isEqualTo(data);
        }
    }
}
