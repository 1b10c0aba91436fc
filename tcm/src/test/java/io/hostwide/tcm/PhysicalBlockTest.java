package io.hostwide.tcm;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.VpdPage.BlockLimits;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.Backstore;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.hostwide.tcm.Harness.BLOCK;
import static io.hostwide.tcm.Harness.BLOCKS;
import static io.hostwide.tcm.Harness.cdb;
import static io.hostwide.tcm.ProvisioningTest.unmap;
import static io.hostwide.tcm.ProvisioningTest.unmapList;
import static io.hostwide.tcm.ProvisioningTest.ws10;
import static io.hostwide.tcm.ProvisioningTest.ws16;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Logical blocks per physical block (SBC-4 §5.22.2 LBPPBE, §6.6.4 granularities) and UNMAP / WRITE SAME(UNMAP) of
 * ranges that do not cover whole physical blocks (libiscsi WriteSame10/16.UnmapUnaligned).
 */
class PhysicalBlockTest {
    static final int LBPPB = 8; // 4 KiB physical blocks over 512-byte logical blocks

    /** A RAM backstore that records the ranges it is asked to deallocate. */
    static final class RecordingRam implements Backstore {
        final RamBackstore ram = new RamBackstore(BLOCKS * BLOCK, BLOCK);
        final List<long[]> unmapped = new ArrayList<>();

        @Override public int blockSize() { return ram.blockSize(); }
        @Override public long blockCount() { return ram.blockCount(); }
        @Override public boolean blocking() { return false; }
        @Override public void read(long lba, ByteBuffer dst) { ram.read(lba, dst); }
        @Override public void write(long lba, ByteBuffer src, boolean fua) throws java.io.IOException { ram.write(lba, src, fua); }
        @Override public void flush() {}
        @Override public boolean supportsUnmap() { return true; }
        @Override public boolean unmapReturnsZeros() { return true; }
        @Override public void writeZeros(long lba, long blocks) { ram.writeZeros(lba, blocks); }
        @Override public long provisioningRun(long lba, long maxBlocks) { return ram.provisioningRun(lba, maxBlocks); }
        @Override public String describe() { return "recording " + ram.describe(); }
        @Override public void close() { ram.close(); }

        @Override
        public synchronized void unmap(long lba, long blocks) {
            unmapped.add(new long[] {lba, blocks});
            ram.unmap(lba, blocks);
        }
    }

    static DeviceAttributes fourK() {
        return new DeviceAttributes().thinProvisioning(true).logicalBlocksPerPhysicalBlockExponent(3);
    }

    static byte[] readCapacity16() { return cdb(0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0); }

    @Test
    void readCapacity16ReportsTheExponentAndLowestAlignedLbaZero() {
        try (Harness h = new Harness(fourK())) {
            byte[] d = h.in(readCapacity16(), 32).data();
            assertThat(BigEndian.u32(d, 8)).isEqualTo(BLOCK);
            assertThat(d[13] & 0x0F).isEqualTo(3);
            assertThat(d[14] & 0x3F).isZero();
            assertThat(d[15]).isZero();
            assertThat(d[14] & 0xC0).isEqualTo(0xC0); // LBPME | LBPRZ untouched by the exponent
        }
        try (Harness h = new Harness(new DeviceAttributes())) {
            assertThat(h.in(readCapacity16(), 32).data()[13]).isZero();
        }
    }

    @Test
    void blockLimitsGranularitiesAreOnePhysicalBlock() {
        try (Harness h = new Harness(fourK())) {
            byte[] b0 = h.in(cdb(0x12, 1, 0xB0, 0, 255, 0), 255).data();
            assertThat(BigEndian.u16(b0, BlockLimits.OPTIMAL_TRANSFER_LENGTH_GRANULARITY)).isEqualTo(LBPPB);
            assertThat(BigEndian.u32(b0, BlockLimits.OPTIMAL_UNMAP_GRANULARITY)).isEqualTo(LBPPB);
            assertThat(BigEndian.u32(b0, BlockLimits.MAXIMUM_UNMAP_LBA_COUNT)).isGreaterThanOrEqualTo(LBPPB);
        }
        try (Harness h = new Harness(fourK().unmapGranularity(64))) { // a coarser configured granularity wins
            byte[] b0 = h.in(cdb(0x12, 1, 0xB0, 0, 255, 0), 255).data();
            assertThat(BigEndian.u32(b0, BlockLimits.OPTIMAL_UNMAP_GRANULARITY)).isEqualTo(64);
        }
        try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true))) {
            byte[] b0 = h.in(cdb(0x12, 1, 0xB0, 0, 255, 0), 255).data();
            assertThat(BigEndian.u16(b0, BlockLimits.OPTIMAL_TRANSFER_LENGTH_GRANULARITY)).isEqualTo(1);
            assertThat(BigEndian.u32(b0, BlockLimits.OPTIMAL_UNMAP_GRANULARITY)).isEqualTo(1);
        }
    }

    @Test
    void exponentOutsideTheFourBitFieldIsRefused() {
        assertThatThrownBy(() -> new DeviceAttributes().logicalBlocksPerPhysicalBlockExponent(16))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DeviceAttributes().logicalBlocksPerPhysicalBlockExponent(-1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** libiscsi WriteSame10/16.UnmapUnaligned: WRITE SAME(UNMAP) at LBA i of LBPPB - i blocks, i = 1..LBPPB-1. */
    @Test
    void unalignedWriteSameUnmapSucceedsAndReadsZeros() {
        RecordingRam ram = new RecordingRam();
        try (Harness h = new Harness(fourK(), ram)) {
            byte[] a6 = new byte[BLOCK];
            Arrays.fill(a6, (byte) 0xA6);
            for (int i = 1; i < LBPPB; i++) {
                assertThat(h.out(Harness.write10(0, LBPPB), Harness.pattern(LBPPB * BLOCK, i)).status())
                        .isEqualTo(ScsiStatus.GOOD);
                byte[] c = i % 2 == 0 ? ws10(0x08, i, LBPPB - i) : ws16(0x08, i, LBPPB - i);
                assertThat(h.out(c, a6).status()).isEqualTo(ScsiStatus.GOOD);
                byte[] d = h.in(Harness.read10(0, LBPPB), LBPPB * BLOCK).data();
                assertThat(Arrays.copyOfRange(d, 0, i * BLOCK)) // untouched head
                        .isEqualTo(Arrays.copyOfRange(Harness.pattern(LBPPB * BLOCK, i), 0, i * BLOCK));
                assertThat(Arrays.copyOfRange(d, i * BLOCK, LBPPB * BLOCK)).containsOnly(0); // LBPRZ = 1
            }
            assertThat(ram.unmapped).isEmpty(); // no whole physical block was inside any of those ranges
        }
    }

    @Test
    void unmapDeallocatesOnlyWholePhysicalBlocksAndZerosTheEnds() {
        RecordingRam ram = new RecordingRam();
        try (Harness h = new Harness(fourK(), ram)) {
            int n = 4 * LBPPB;
            assertThat(h.out(Harness.write10(0, n), Harness.pattern(n * BLOCK, 7)).status()).isEqualTo(ScsiStatus.GOOD);
            byte[] list = unmapList(3, 2 * LBPPB + 2, 3 * LBPPB, LBPPB);
            assertThat(h.out(unmap(list.length), list).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(ram.unmapped).containsExactly(new long[] {LBPPB, LBPPB}, new long[] {3 * LBPPB, LBPPB});
            byte[] d = h.in(Harness.read10(0, n), n * BLOCK).data();
            byte[] p = Harness.pattern(n * BLOCK, 7);
            assertThat(Arrays.copyOfRange(d, 0, 3 * BLOCK)).isEqualTo(Arrays.copyOfRange(p, 0, 3 * BLOCK));
            assertThat(Arrays.copyOfRange(d, 3 * BLOCK, (2 * LBPPB + 5) * BLOCK)).containsOnly(0);
            assertThat(Arrays.copyOfRange(d, (2 * LBPPB + 5) * BLOCK, 3 * LBPPB * BLOCK))
                    .isEqualTo(Arrays.copyOfRange(p, (2 * LBPPB + 5) * BLOCK, 3 * LBPPB * BLOCK));
            assertThat(Arrays.copyOfRange(d, 3 * LBPPB * BLOCK, n * BLOCK)).containsOnly(0);
        }
    }

    @Test
    void granuleBoundariesFollowTheAlignment() {
        RecordingRam ram = new RecordingRam();
        try (Harness h = new Harness(fourK().unmapGranularityAlignment(2), ram)) {
            byte[] list = unmapList(0, 3 * LBPPB);
            assertThat(h.out(unmap(list.length), list).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(ram.unmapped).containsExactly(new long[] {2, 2 * LBPPB}); // boundaries at 2, 10, 18, 26
        }
    }
}
