package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseData;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.TargetCommand;
import org.junit.jupiter.api.Test;

import static io.hostwide.tcm.Harness.BLOCK;
import static io.hostwide.tcm.Harness.BLOCKS;
import static io.hostwide.tcm.Harness.cdb;
import static org.assertj.core.api.Assertions.assertThat;

/** WRITE SAME 10/16, UNMAP and GET LBA STATUS on a thin RAM device (SBC-4 §5.49-5.50, §5.31, §5.8). */
class ProvisioningTest {
    /** RAM pages hold 128 blocks of 512 bytes: allocation is exact at that granularity. */
    static final int PAGE = RamBackstore.PAGE_SIZE / BLOCK;

    static Harness thin() { return new Harness(new DeviceAttributes().thinProvisioning(true)); }

    static byte[] ws10(int flags, long lba, int blocks) {
        byte[] c = new byte[10];
        c[0] = 0x41;
        c[1] = (byte) flags;
        BigEndian.put32(c, 2, lba);
        BigEndian.put16(c, 7, blocks);
        return c;
    }

    static byte[] ws16(int flags, long lba, long blocks) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x93;
        c[1] = (byte) flags;
        BigEndian.put64(c, 2, lba);
        BigEndian.put32(c, 10, blocks);
        return c;
    }

    static byte[] unmapList(long... lbaCount) {
        byte[] d = new byte[8 + 16 * (lbaCount.length / 2)];
        BigEndian.put16(d, 0, d.length - 2);
        BigEndian.put16(d, 2, d.length - 8);
        for (int i = 0; i < lbaCount.length / 2; i++) {
            BigEndian.put64(d, 8 + 16 * i, lbaCount[2 * i]);
            BigEndian.put32(d, 16 + 16 * i, lbaCount[2 * i + 1]);
        }
        return d;
    }

    static byte[] unmap(int paramLen) { return cdb(0x42, 0, 0, 0, 0, 0, 0, paramLen >>> 8, paramLen & 0xFF, 0); }

    /** GET LBA STATUS: returns the data. */
    static byte[] lbaStatus(Harness h, long lba, int alloc) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x9E;
        c[1] = 0x12;
        BigEndian.put64(c, 2, lba);
        BigEndian.put32(c, 10, alloc);
        TestFabric.Result r = h.in(c, alloc);
        assertThat(r.status()).as("%s", r).isEqualTo(ScsiStatus.GOOD);
        return r.data();
    }

    @Test
    void writeSameReplicatesTheBlock() {
        try (Harness h = thin()) {
            byte[] block = Harness.pattern(BLOCK, 3);
            assertThat(h.out(ws10(0, 10, 5), block).status()).isEqualTo(ScsiStatus.GOOD);
            byte[] d = h.in(Harness.read10(10, 5), 5 * BLOCK).data();
            for (int i = 0; i < 5; i++) {
                assertThat(java.util.Arrays.copyOfRange(d, i * BLOCK, (i + 1) * BLOCK)).isEqualTo(block);
            }
            assertThat(h.out(ws16(0, BLOCKS - 1, 2), block).ascAscq()).isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
            assertThat(h.out(ws10(0, BLOCKS + 1, 0), block).ascAscq()).isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
        }
    }

    @Test
    void writeSameNeedsExactlyOneBlockAndRejectsAnchor() {
        try (Harness h = thin()) {
            assertThat(h.out(ws10(0, 0, 1), new byte[BLOCK / 2]).status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
            assertThat(h.out(ws10(0, 0, 1), new byte[2 * BLOCK]).status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
            assertThat(h.out(ws10(0x10 | 0x08, 0, 1), new byte[BLOCK]).fieldPointer())
                    .isEqualTo(SenseData.fieldPointer(true, 1, 4));
            assertThat(h.out(ws10(0x04, 0, 1), new byte[BLOCK]).fieldPointer())
                    .isEqualTo(SenseData.fieldPointer(true, 1, 2)); // obsolete PBDATA is reserved
        }
    }

    @Test
    void writeSameUnmapAndNdobDeallocate() {
        try (Harness h = thin()) {
            h.out(Harness.write10(0, 4 * PAGE), Harness.pattern(4 * PAGE * BLOCK, 1));
            assertThat(h.out(ws10(0x08, 0, 2 * PAGE), new byte[BLOCK]).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(0, 2 * PAGE), 2 * PAGE * BLOCK).data()).containsOnly(0);
            byte[] st = lbaStatus(h, 0, 64);
            assertThat(BigEndian.u32(st, 16)).isEqualTo(2 * PAGE);
            assertThat(st[20] & 0x0F).isEqualTo(1); // deallocated
            TestFabric.Result ndob = h.fabric.run(h.session, 0, ws16(0x09, 2 * PAGE, PAGE), 0, TargetCommand.DIR_NONE, null);
            assertThat(ndob.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(lbaStatus(h, 0, 24)).satisfies(d -> assertThat(BigEndian.u32(d, 16)).isEqualTo(3 * PAGE));
            // WRITE SAME with UNMAP deallocates even with non-zero data, and LBPRZ = 1 reads zeros back
            // (libiscsi WriteSame10.UnmapUntilEnd sends 0xFF blocks with UNMAP; LIO unmaps likewise)
            h.out(Harness.write10(0, 1), Harness.pattern(BLOCK, 7));
            assertThat(h.out(ws10(0x08, 0, 1), Harness.pattern(BLOCK, 8)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(0, 1), BLOCK).data()).isEqualTo(new byte[BLOCK]);
        }
    }

    @Test
    void writeSameZeroLengthRunsToTheEnd() {
        try (Harness h = thin()) {
            byte[] block = Harness.pattern(BLOCK, 4);
            assertThat(h.out(ws16(0, BLOCKS - 3, 0), block).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(BLOCKS - 1, 1), BLOCK).data()).isEqualTo(block);
        }
    }

    @Test
    void unmapOnlyChangesDataWhenEveryDescriptorIsValid() {
        try (Harness h = thin()) {
            byte[] data = Harness.pattern(2 * PAGE * BLOCK, 2);
            h.out(Harness.write10(0, 2 * PAGE), data);
            byte[] list = unmapList(0, PAGE, BLOCKS, 1);
            assertThat(h.out(unmap(list.length), list).ascAscq()).isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
            assertThat(h.in(Harness.read10(0, 2 * PAGE), 2 * PAGE * BLOCK).data()).isEqualTo(data);
            byte[] ok = unmapList(0, PAGE, BLOCKS, 0, 5, 1);
            assertThat(h.out(unmap(ok.length), ok).status()).isEqualTo(ScsiStatus.GOOD);
            byte[] after = h.in(Harness.read10(0, 2 * PAGE), 2 * PAGE * BLOCK).data();
            assertThat(java.util.Arrays.copyOfRange(after, 0, PAGE * BLOCK)).containsOnly(0);
            assertThat(java.util.Arrays.copyOfRange(after, PAGE * BLOCK, 2 * PAGE * BLOCK))
                    .isEqualTo(java.util.Arrays.copyOfRange(data, PAGE * BLOCK, 2 * PAGE * BLOCK));
        }
    }

    @Test
    void unmapParameterListChecks() {
        try (Harness h = thin()) {
            assertThat(h.none(unmap(0)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.out(unmap(6), new byte[6]).ascAscq()).isEqualTo(Asc.PARAMETER_LIST_LENGTH_ERROR);
            byte[] lying = unmapList(0, 1);
            BigEndian.put16(lying, 2, 64); // descriptor length beyond the list
            assertThat(h.out(unmap(lying.length), lying).ascAscq()).isEqualTo(Asc.PARAMETER_LIST_LENGTH_ERROR);
            byte[] list = unmapList(0, 1);
            assertThat(h.out(unmap(list.length + 16), list).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_INFORMATION_UNIT);
            assertThat(h.out(cdb(0x42, 1, 0, 0, 0, 0, 0, 0, 24, 0), list).fieldPointer())
                    .isEqualTo(SenseData.fieldPointer(true, 1, 0)); // ANCHOR
        }
        try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true).maxUnmapBlockDescriptorCount(1)
                .maxUnmapLbaCount(4))) {
            byte[] two = unmapList(0, 1, 5, 1);
            assertThat(h.out(unmap(two.length), two).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_PARAMETER_LIST);
            byte[] big = unmapList(0, 5);
            assertThat(h.out(unmap(big.length), big).fieldPointer()).isEqualTo(SenseData.fieldPointer(false, 16, -1));
        }
    }

    @Test
    void unmapIsNotAnOpcodeOnAThickDevice() {
        try (Harness h = new Harness()) {
            byte[] list = unmapList(0, 1);
            assertThat(h.out(unmap(list.length), list).ascAscq()).isEqualTo(Asc.INVALID_COMMAND_OPERATION_CODE);
            assertThat(h.out(ws10(0x08, 0, 1), new byte[BLOCK]).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
        }
    }

    @Test
    void getLbaStatusReportsRunsAndBounds() {
        try (Harness h = thin()) {
            h.out(Harness.write10(PAGE, PAGE), Harness.pattern(PAGE * BLOCK, 6));
            byte[] d = lbaStatus(h, 0, 8 + 16 * 8);
            assertThat(BigEndian.u32(d, 0)).isEqualTo(d.length - 4);
            assertThat(BigEndian.s64(d, 8)).isZero();
            assertThat(BigEndian.u32(d, 16)).isEqualTo(PAGE);
            assertThat(d[20] & 0x0F).isEqualTo(1);
            assertThat(BigEndian.s64(d, 24)).isEqualTo(PAGE);
            assertThat(d[36] & 0x0F).isZero(); // mapped
            assertThat(BigEndian.s64(d, 40)).isEqualTo(2 * PAGE);
            assertThat(BigEndian.s64(d, 40) + BigEndian.u32(d, 48)).isEqualTo(BLOCKS);
            byte[] last = lbaStatus(h, BLOCKS - 1, 24);
            assertThat(BigEndian.u32(last, 16)).isEqualTo(1);
            byte[] c = new byte[16];
            c[0] = (byte) 0x9E;
            c[1] = 0x12;
            BigEndian.put64(c, 2, BLOCKS);
            BigEndian.put32(c, 10, 24);
            assertThat(h.in(c, 24).ascAscq()).isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
            for (int alloc = 0; alloc < 40; alloc++) {
                BigEndian.put64(c, 2, 0);
                BigEndian.put32(c, 10, alloc);
                assertThat(h.in(c, alloc).data()).hasSize(Math.min(alloc, 24));
            }
        }
    }

    @Test
    void partialPageUnmapZeroesAndKeepsThePageMapped() {
        try (Harness h = thin()) {
            h.out(Harness.write10(0, PAGE), Harness.pattern(PAGE * BLOCK, 7));
            byte[] list = unmapList(3, 1);
            assertThat(h.out(unmap(list.length), list).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(3, 1), BLOCK).data()).containsOnly(0);
            assertThat(lbaStatus(h, 4, 24)[20] & 0x0F).isZero();
        }
    }

    /**
     * libiscsi WriteSame16.Unmap: with MAXIMUM WRITE SAME LENGTH 0 (no limit) it writes and reads 65536 blocks in
     * single commands, beyond MAXIMUM TRANSFER LENGTH. SBC-4 §6.6.4: the default limit is 65535 (VPD B0h bytes
     * 36-43); one block more is INVALID FIELD IN CDB, and NUMBER OF LOGICAL BLOCKS 0 within the limit of the end
     * of the medium is fine (libiscsi WriteSame10.ZeroBlocks).
     */
    @Test
    void defaultMaximumWriteSameLengthIs65535() {
        long blocks = 70_000;
        try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true), new RamBackstore(blocks * BLOCK,
                BLOCK))) {
            byte[] b0 = h.in(cdb(0x12, 1, 0xB0, 0, 255, 0), 255).data();
            assertThat(BigEndian.s64(b0, 36)).isEqualTo(65535);
            TestFabric.Result over = h.out(ws16(0x08, 0, 65536), new byte[BLOCK]);
            assertThat(over.ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            assertThat(h.out(ws16(0x08, 0, 65535), new byte[BLOCK]).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.out(ws16(0, 0, 0), new byte[BLOCK]).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            assertThat(h.out(ws16(0, blocks - 65535, 0), new byte[BLOCK]).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }
}
