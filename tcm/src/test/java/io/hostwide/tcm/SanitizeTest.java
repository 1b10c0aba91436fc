package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.DeviceAttributes;
import org.junit.jupiter.api.Test;

import static io.hostwide.tcm.Harness.BLOCK;
import static io.hostwide.tcm.Harness.cdb;
import static org.assertj.core.api.Assertions.assertThat;

/** SANITIZE (SBC-4 §5.30), the cases libiscsi's Sanitize suite sends. */
class SanitizeTest {

    static byte[] sanitize(int sa, int paramLen) { return cdb(0x48, sa, 0, 0, 0, 0, 0, paramLen >>> 8, paramLen & 0xFF, 0); }

    static byte[] overwriteList(int countAndFlags, int patternLen, int fill) {
        byte[] d = new byte[4 + patternLen];
        d[0] = (byte) countAndFlags;
        d[2] = (byte) (patternLen >>> 8);
        d[3] = (byte) patternLen;
        java.util.Arrays.fill(d, 4, d.length, (byte) fill);
        return d;
    }

    @Test
    void overwriteFillsEveryBlockWithThePattern() {
        RamBackstore ram = new RamBackstore(64 * BLOCK, BLOCK);
        try (Harness h = new Harness(new DeviceAttributes(), ram)) {
            h.out(Harness.write10(0, 1), Harness.pattern(BLOCK, 1));
            byte[] list = overwriteList(0x01, 4, 0xAA);
            assertThat(h.out(sanitize(0x01, list.length), list).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(0, 64), 64 * BLOCK).data()).containsOnly(0xAA);
            byte[] inv = overwriteList(0x82, BLOCK / 2, 0x0F); // INVERT, two passes: ends inverted
            assertThat(h.out(sanitize(0x01, inv.length), inv).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(63, 1), BLOCK).data()).containsOnly(0xF0);
        }
    }

    @Test
    void overwriteParameterErrorsAreInvalidFieldInCdb() {
        try (Harness h = new Harness()) {
            byte[] list = overwriteList(0x01, BLOCK, 0xAA);
            for (int len = 0; len < 5; len++) {
                assertThat(h.out(sanitize(0x01, len), list).ascAscq()).as("len %d", len).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            }
            byte[] big = new byte[BLOCK + 8];
            assertThat(h.out(sanitize(0x01, BLOCK + 5), big).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            assertThat(h.out(sanitize(0x01, list.length), overwriteList(0x00, BLOCK, 1)).status())
                    .isEqualTo(ScsiStatus.CHECK_CONDITION); // OVERWRITE COUNT 0
            byte[] zeroPattern = overwriteList(0x01, BLOCK, 1);
            zeroPattern[2] = 0;
            zeroPattern[3] = 0;
            assertThat(h.out(sanitize(0x01, list.length), zeroPattern).ascAscq())
                    .isEqualTo(Asc.INVALID_FIELD_IN_CDB); // pattern length 0
            byte[] longPattern = overwriteList(0x01, BLOCK, 1);
            longPattern[2] = (byte) ((BLOCK + 4) >>> 8);
            longPattern[3] = (byte) (BLOCK + 4);
            assertThat(h.out(sanitize(0x01, list.length), longPattern).ascAscq())
                    .isEqualTo(Asc.INVALID_FIELD_IN_CDB); // pattern longer than a block
        }
    }

    @Test
    void eraseDeallocatesAndReadsZero() {
        RamBackstore ram = new RamBackstore(1 << 20, BLOCK);
        try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true), ram)) {
            h.out(Harness.write10(0, 256), Harness.pattern(256 * BLOCK, 2));
            assertThat(h.none(sanitize(0x02, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(ram.allocatedPages()).isZero();
            assertThat(h.in(Harness.read10(0, 256), 256 * BLOCK).data()).containsOnly(0);
            h.out(Harness.write10(0, 1), Harness.pattern(BLOCK, 3));
            assertThat(h.none(sanitize(0x03, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(0, 1), BLOCK).data()).containsOnly(0);
            assertThat(h.out(sanitize(0x03, 8), new byte[8]).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            assertThat(h.none(sanitize(0x1F, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.out(sanitize(0x1F, 8), new byte[8]).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            for (int sa : new int[] {0, 4, 5, 0x10, 0x1E}) {
                assertThat(h.none(sanitize(sa, 0)).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            }
            for (int b = 2; b < 7; b++) {
                byte[] c = sanitize(0x02, 0);
                c[b] = 1;
                assertThat(h.none(c).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            }
        }
    }

    /**
     * A backstore whose deallocated blocks keep their old contents (LBPRZ = 0, like a discard on a block device):
     * BLOCK ERASE must still leave nothing readable, so it writes zeros instead of deallocating.
     */
    @Test
    void eraseWritesZerosWhereDeallocationKeepsTheData() {
        RamBackstore ram = new RamBackstore(64 * BLOCK, BLOCK);
        java.util.concurrent.atomic.AtomicInteger unmaps = new java.util.concurrent.atomic.AtomicInteger();
        io.hostwide.tcm.spi.Backstore leaky = new io.hostwide.tcm.spi.Backstore() {
            public int blockSize() { return ram.blockSize(); }
            public long blockCount() { return ram.blockCount(); }
            public boolean blocking() { return false; }
            public void read(long lba, java.nio.ByteBuffer dst) throws java.io.IOException { ram.read(lba, dst); }
            public void write(long lba, java.nio.ByteBuffer src, boolean fua) throws java.io.IOException { ram.write(lba, src, fua); }
            public void flush() { }
            public boolean supportsUnmap() { return true; }
            public boolean unmapReturnsZeros() { return false; }
            public void unmap(long lba, long blocks) { unmaps.incrementAndGet(); } // the data stays
            public long provisioningRun(long lba, long maxBlocks) { return maxBlocks; }
            public String describe() { return "discard keeps data"; }
            public void close() { }
        };
        try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true), leaky)) {
            h.out(Harness.write10(0, 64), Harness.pattern(64 * BLOCK, 5));
            assertThat(h.none(sanitize(0x02, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(0, 64), 64 * BLOCK).data()).containsOnly(0);
            assertThat(unmaps).hasValue(0);
        }
    }

    @Test
    void sanitizeOfAWriteProtectedDeviceIsRefused() {
        try (Harness h = new Harness(new DeviceAttributes().writeProtect(true))) {
            assertThat(h.none(sanitize(0x02, 0)).ascAscq()).isEqualTo(Asc.WRITE_PROTECTED);
        }
    }

    /**
     * libiscsi Sanitize.BlockErase / CryptoErase: with SANITIZE supported, the Block Device Characteristics VPD page
     * (SBC-4 §6.6.2) byte 7 reports WABEREQ = 01b and WACEREQ = 01b (reads after the erase are GOOD), and a read
     * after BLOCK ERASE is indeed GOOD; without SANITIZE both stay 00b.
     */
    @Test
    void blockDeviceCharacteristicsReportReadsAfterEraseAsGood() {
        try (Harness h = new Harness()) {
            byte[] b1 = h.in(cdb(0x12, 1, 0xB1, 0, 64, 0), 64).data();
            assertThat(b1[7] & 0xF0).isEqualTo(0x50);
            assertThat(h.none(cdb(0x48, 0x02, 0, 0, 0, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(0, 1), BLOCK).status()).isEqualTo(ScsiStatus.GOOD);
        }
        try (Harness h = new Harness(new DeviceAttributes().emulateSanitize(false))) {
            assertThat(h.in(cdb(0x12, 1, 0xB1, 0, 64, 0), 64).data()[7] & 0xF0).isZero();
        }
    }
}
