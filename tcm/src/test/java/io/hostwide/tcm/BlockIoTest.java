package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.Cdb10;
import io.hostwide.scsi.spec.Cdb12;
import io.hostwide.scsi.spec.Cdb16;
import io.hostwide.scsi.spec.Cdb6;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseData;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.backstore.NullBackstore;
import io.hostwide.tcm.lu.DeviceAttributes;
import org.junit.jupiter.api.Test;

import static io.hostwide.tcm.Harness.BLOCK;
import static io.hostwide.tcm.Harness.BLOCKS;
import static io.hostwide.tcm.Harness.cdb;
import static org.assertj.core.api.Assertions.assertThat;

/** READ/WRITE 6/10/12/16, VERIFY, WRITE AND VERIFY, PRE-FETCH, SYNCHRONIZE CACHE, READ CAPACITY at the edges. */
class BlockIoTest {

    static byte[] rw(int op, long lba, long blocks, int flags) {
        return switch (op) {
            case 0x08, 0x0A -> Cdb6.encode(new byte[6], op, lba, (int) blocks, 0);
            case 0x28, 0x2A, 0x2E, 0x2F, 0x34, 0x35 -> Cdb10.encode(new byte[10], op, flags, lba, (int) blocks, 0, 0);
            case 0xA8, 0xAA, 0xAE, 0xAF -> Cdb12.encode(new byte[12], op, flags, lba, blocks, 0, 0);
            default -> Cdb16.encode(new byte[16], op, flags, lba, blocks, 0, 0);
        };
    }

    @Test
    void everyReadAndWriteSizeAtTheEndOfTheMedium() {
        int[][] pairs = {{0x28, 0x2A}, {0xA8, 0xAA}, {0x88, 0x8A}};
        try (Harness h = new Harness()) {
            for (int[] p : pairs) {
                byte[] data = Harness.pattern(2 * BLOCK, p[0]);
                assertThat(h.out(rw(p[1], BLOCKS - 2, 2, 0), data).status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(h.in(rw(p[0], BLOCKS - 2, 2, 0), 2 * BLOCK).data()).isEqualTo(data);
                assertThat(h.in(rw(p[0], BLOCKS - 1, 2, 0), 2 * BLOCK).ascAscq()).isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
                assertThat(h.out(rw(p[1], BLOCKS - 1, 2, 0), new byte[2 * BLOCK]).ascAscq())
                        .isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
                // libiscsi Read10.0Blocks: zero blocks at the capacity is fine, one past it is not
                assertThat(h.in(rw(p[0], BLOCKS, 0, 0), 0).status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(h.in(rw(p[0], BLOCKS + 1, 0, 0), 0).ascAscq()).isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
                assertThat(h.in(rw(p[0], 0x8000_0000L, 0, 0), 0).ascAscq()).isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
                assertThat(h.in(rw(p[0], p[0] == 0x88 ? -1L : 0xFFFF_FFFFL, 1, 0), BLOCK).ascAscq())
                        .isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
                // FUA and DPO are accepted
                assertThat(h.out(rw(p[1], 0, 1, Cdb10.FUA | Cdb10.DPO), data).status()).isEqualTo(ScsiStatus.GOOD);
                // RDPROTECT/WRPROTECT without protection information
                TestFabric.Result prot = h.in(rw(p[0], 0, 1, 0x20), BLOCK);
                assertThat(prot.fieldPointer()).isEqualTo(SenseData.fieldPointer(true, 1, 7));
            }
        }
    }

    @Test
    void readSixZeroLengthMeans256Blocks() {
        try (Harness h = new Harness()) {
            TestFabric.Result r = h.in(rw(0x08, 0, 0, 0), 256 * BLOCK);
            assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(r.data()).hasSize(256 * BLOCK);
            assertThat(h.out(rw(0x0A, BLOCKS - 1, 1, 0), new byte[BLOCK]).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    @Test
    void unwrittenBlocksReadAsZeros() {
        try (Harness h = new Harness()) {
            assertThat(h.in(Harness.read10(100, 4), 4 * BLOCK).data()).containsOnly(0);
        }
    }

    @Test
    void transfersAboveMaximumTransferLengthAreInvalidField() {
        try (Harness h = new Harness(new DeviceAttributes().maxTransferLength(8))) {
            TestFabric.Result r = h.in(Harness.read10(0, 9), 9 * BLOCK);
            assertThat(r.fieldPointer()).isEqualTo(SenseData.fieldPointer(true, 7, -1));
            assertThat(h.in(Harness.read10(0, 8), 8 * BLOCK).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    @Test
    void defaultTransferLimitIsEightMebibytes() {
        try (Harness h = new Harness()) {
            assertThat(h.device.maxTransferBlocks()).isEqualTo(8 * 1024 * 1024 / BLOCK);
            byte[] c = rw(0x88, 0, 0xFFFF_FFFFL, 0); // the range is checked first
            assertThat(h.in(c, 512).ascAscq()).isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
        }
        try (Harness h = new Harness(new DeviceAttributes(), new NullBackstore(1L << 40, 4096))) {
            byte[] c = rw(0x88, 0, 2049, 0); // in range, one block over 8 MiB
            assertThat(h.in(c, 512).fieldPointer()).isEqualTo(SenseData.fieldPointer(true, 10, -1));
            assertThat(h.in(rw(0x88, 0, 2048, 0), 2048 * 4096).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    @Test
    void verifyByteCheckModes() {
        try (Harness h = new Harness()) {
            byte[] data = Harness.pattern(4 * BLOCK, 9);
            h.out(Harness.write10(20, 4), data);
            assertThat(h.out(rw(0x2F, 20, 4, 0x02), data).status()).isEqualTo(ScsiStatus.GOOD); // BYTCHK 01b
            byte[] wrong = data.clone();
            wrong[3 * BLOCK + 17] ^= 1;
            TestFabric.Result m = h.out(rw(0x2F, 20, 4, 0x02), wrong);
            assertThat(m.senseKey()).isEqualTo(SenseKey.MISCOMPARE);
            assertThat(m.ascAscq()).isEqualTo(Asc.MISCOMPARE_DURING_VERIFY_OPERATION);
            assertThat(m.information()).isEqualTo(3 * BLOCK + 17);
            assertThat(h.none(rw(0x2F, 20, 4, 0x00)).status()).isEqualTo(ScsiStatus.GOOD); // BYTCHK 00b
            assertThat(h.out(rw(0x2F, 20, 4, 0x04), new byte[BLOCK]).fieldPointer())
                    .isEqualTo(SenseData.fieldPointer(true, 1, 2)); // BYTCHK 10b reserved
            byte[] same = Harness.pattern(BLOCK, 5);
            for (int i = 0; i < 3; i++) {
                h.out(Harness.write10(40 + i, 1), same);
            }
            assertThat(h.out(rw(0xAF, 40, 3, 0x06), same).status()).isEqualTo(ScsiStatus.GOOD); // BYTCHK 11b
            assertThat(h.out(rw(0x8F, 39, 3, 0x06), same).senseKey()).isEqualTo(SenseKey.MISCOMPARE);
            assertThat(h.out(rw(0x8F, BLOCKS, 1, 0x02), new byte[BLOCK]).ascAscq())
                    .isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
            assertThat(h.none(rw(0x2F, BLOCKS, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    @Test
    void writeAndVerifyWritesTheData() {
        try (Harness h = new Harness()) {
            for (int op : new int[] {0x2E, 0xAE, 0x8E}) {
                byte[] data = Harness.pattern(2 * BLOCK, op);
                assertThat(h.out(rw(op, 7, 2, 0x02), data).status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(h.in(Harness.read10(7, 2), 2 * BLOCK).data()).isEqualTo(data);
                assertThat(h.out(rw(op, BLOCKS - 1, 2, 0), new byte[2 * BLOCK]).ascAscq())
                        .isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
            }
        }
    }

    @Test
    void prefetchAndSynchronizeCache() {
        try (Harness h = new Harness()) {
            assertThat(h.none(rw(0x34, 0, 16, 0)).status()).isEqualTo(ScsiStatus.CONDITION_MET);
            assertThat(h.none(rw(0x90, BLOCKS - 1, 1, 0x02)).status()).isEqualTo(ScsiStatus.CONDITION_MET);
            assertThat(h.none(rw(0x34, BLOCKS, 0, 0)).status()).isEqualTo(ScsiStatus.CONDITION_MET);
            assertThat(h.none(rw(0x34, BLOCKS, 1, 0)).ascAscq()).isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
            assertThat(h.none(rw(0x35, 0, 0, 0x02)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.none(rw(0x91, BLOCKS - 1, 2, 0)).ascAscq()).isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
        }
    }

    @Test
    void readCapacity() {
        try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true))) {
            byte[] rc10 = h.in(cdb(0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0), 8).data();
            assertThat(BigEndian.u32(rc10, 0)).isEqualTo(BLOCKS - 1);
            assertThat(BigEndian.u32(rc10, 4)).isEqualTo(BLOCK);
            for (int alloc = 0; alloc <= 40; alloc++) {
                TestFabric.Result r = h.in(cdb(0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, alloc, 0, 0), alloc);
                assertThat(r.data()).hasSize(Math.min(alloc, 32));
            }
            byte[] rc16 = h.in(cdb(0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0), 32).data();
            assertThat(BigEndian.s64(rc16, 0)).isEqualTo(BLOCKS - 1);
            assertThat(rc16[14] & 0xC0).isEqualTo(0xC0); // LBPME, LBPRZ
            assertThat(h.in(cdb(0x9E, 0x11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0), 32).fieldPointer())
                    .isEqualTo(SenseData.fieldPointer(true, 1, 4)); // unknown service action
        }
    }
}
