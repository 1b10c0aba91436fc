package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseData;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.spi.TargetCommand;
import org.junit.jupiter.api.Test;

import static io.hostwide.tcm.Harness.cdb;
import static org.assertj.core.api.Assertions.assertThat;

/** MODE SENSE / MODE SELECT 6 and 10 (SPC-4 §6.9-§6.12, §7.5; SBC-4 §6.5). */
class ModePagesTest {

    static byte[] sense6(int dbd, int pc, int page, int alloc) {
        return cdb(0x1A, dbd << 3, pc << 6 | page, 0, alloc, 0);
    }

    /** Finds a page in MODE SENSE(6) data; returns its offset or -1. */
    static int find6(byte[] d, int page) {
        int p = 4 + (d[3] & 0xFF);
        while (p + 1 < d.length) {
            if ((d[p] & 0x3F) == page) {
                return p;
            }
            p += 2 + (d[p + 1] & 0xFF);
        }
        return -1;
    }

    /** MODE SELECT(6) with a header and one page. */
    static byte[] select6(byte[] page) {
        byte[] d = new byte[4 + page.length];
        System.arraycopy(page, 0, d, 4, page.length);
        return d;
    }

    static byte[] currentPage(Harness h, int code) {
        byte[] d = h.in(sense6(1, 0, code, 255), 255).data();
        int p = find6(d, code);
        return java.util.Arrays.copyOfRange(d, p, p + 2 + (d[p + 1] & 0xFF));
    }

    @Test
    void allPagesWithBlockDescriptor() {
        try (Harness h = new Harness()) {
            byte[] d = h.in(sense6(0, 0, 0x3F, 255), 255).data();
            assertThat(d[0] & 0xFF).isEqualTo(d.length - 1);
            assertThat(d[2] & 0x10).isEqualTo(0x10); // DPOFUA
            assertThat(d[3]).isEqualTo((byte) 8);
            assertThat(BigEndian.u32(d, 4)).isEqualTo(Harness.BLOCKS);
            assertThat(BigEndian.u24(d, 9)).isEqualTo(Harness.BLOCK);
            for (int page : new int[] {0x01, 0x08, 0x0A, 0x1C}) {
                assertThat(find6(d, page)).as("page %02x", page).isPositive();
            }
        }
    }

    @Test
    void modeSense10WithLongLba() {
        try (Harness h = new Harness()) {
            byte[] d = h.in(cdb(0x5A, 0x10, 0x0A, 0, 0, 0, 0, 1, 0, 0), 256).data();
            assertThat(BigEndian.u16(d, 0)).isEqualTo(d.length - 2);
            assertThat(d[4] & 0x01).isEqualTo(1);
            assertThat(BigEndian.u16(d, 6)).isEqualTo(16);
            assertThat(BigEndian.s64(d, 8)).isEqualTo(Harness.BLOCKS);
            assertThat(d[24] & 0x3F).isEqualTo(0x0A);
        }
    }

    @Test
    void allocationLengthSweepAndInvalidPages() {
        try (Harness h = new Harness()) {
            int full = h.in(sense6(0, 0, 0x3F, 255), 255).data().length;
            for (int alloc = 0; alloc < 256; alloc++) {
                TestFabric.Result r = h.in(sense6(0, 0, 0x3F, alloc), alloc);
                assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(r.data()).hasSize(Math.min(alloc, full));
                assertThat(r.residualKind()).isNotEqualTo(TargetCommand.RESIDUAL_OVERFLOW);
            }
            assertThat(h.in(sense6(0, 0, 0x05, 255), 255).fieldPointer()).isEqualTo(SenseData.fieldPointer(true, 2, 5));
            assertThat(h.in(cdb(0x1A, 0, 0x0A, 0x01, 255, 0), 255).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            assertThat(h.in(cdb(0x1A, 0, 0x3F, 0xFF, 255, 0), 255).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    @Test
    void changeableValuesShowWceDsenseSwp() {
        try (Harness h = new Harness()) {
            byte[] d = h.in(sense6(1, 1, 0x3F, 255), 255).data();
            assertThat(d[find6(d, 0x08) + 2] & 0x04).isEqualTo(0x04);
            int c = find6(d, 0x0A);
            assertThat(d[c + 2] & 0x04).isEqualTo(0x04);
            assertThat(d[c + 4] & 0x08).isEqualTo(0x08);
            assertThat(d[find6(d, 0x01) + 2]).isZero();
        }
    }

    @Test
    void dSenseSwitchesToDescriptorFormat() {
        try (Harness h = new Harness()) {
            byte[] control = currentPage(h, 0x0A);
            control[2] |= 0x04;
            assertThat(h.out(cdb(0x15, 0x10, 0, 0, 16, 0), select6(control)).status()).isEqualTo(ScsiStatus.GOOD);
            TestFabric.Result r = h.in(Harness.read10(Harness.BLOCKS, 1), 512);
            assertThat(r.sense()[0] & 0x7F).isEqualTo(0x72);
            assertThat(r.senseKey()).isEqualTo(SenseKey.ILLEGAL_REQUEST);
            assertThat(r.ascAscq()).isEqualTo(Asc.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
        }
    }

    @Test
    void swpWriteProtectsAndOtherNexusSeesModeParametersChanged() {
        try (Harness h = new Harness()) {
            Session other = h.newSession("iqn.2026-12.io.hostwide:second");
            byte[] control = currentPage(h, 0x0A);
            control[4] |= 0x08;
            assertThat(h.out(cdb(0x15, 0x11, 0, 0, 16, 0), select6(control)).status()).isEqualTo(ScsiStatus.GOOD);
            TestFabric.Result w = h.out(Harness.write10(0, 1), new byte[512]);
            assertThat(w.senseKey()).isEqualTo(SenseKey.DATA_PROTECT);
            assertThat(w.ascAscq()).isEqualTo(Asc.WRITE_PROTECTED);
            assertThat(h.in(sense6(1, 0, 0x3F, 255), 255).data()[2] & 0x80).isEqualTo(0x80); // WP
            TestFabric.Result ua = h.fabric.run(other, 0, cdb(0, 0, 0, 0, 0, 0), 0, TargetCommand.DIR_NONE, null);
            assertThat(ua.ascAscq()).isEqualTo(Asc.MODE_PARAMETERS_CHANGED);
            byte[] saved = h.in(sense6(1, 3, 0x0A, 255), 255).data();
            assertThat(saved[find6(saved, 0x0A) + 4] & 0x08).isEqualTo(0x08); // SP=1 saved it
        }
    }

    @Test
    void rejectedModeSelectChangesNothing() {
        try (Harness h = new Harness()) {
            byte[] caching = currentPage(h, 0x08);
            caching[2] ^= 0x01; // RCD is not changeable
            caching[2] ^= 0x04; // WCE is, but the list must be applied all-or-nothing
            TestFabric.Result r = h.out(cdb(0x15, 0x10, 0, 0, 24, 0), select6(caching));
            assertThat(r.ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_PARAMETER_LIST);
            assertThat(r.fieldPointer()).isEqualTo(SenseData.fieldPointer(false, 6, 0)); // RCD, byte 2 of the page at offset 4
            assertThat(h.device.modePages().writeCacheEnabled()).isTrue();
            assertThat(h.out(cdb(0x15, 0x10, 0, 0, 2, 0), new byte[2]).ascAscq()).isEqualTo(Asc.PARAMETER_LIST_LENGTH_ERROR);
            byte[] truncated = java.util.Arrays.copyOf(select6(currentPage(h, 0x0A)), 10);
            assertThat(h.out(cdb(0x15, 0x10, 0, 0, 10, 0), truncated).ascAscq()).isEqualTo(Asc.PARAMETER_LIST_LENGTH_ERROR);
            assertThat(h.out(cdb(0x15, 0x00, 0, 0, 16, 0), select6(currentPage(h, 0x0A))).fieldPointer())
                    .isEqualTo(SenseData.fieldPointer(true, 1, 4)); // PF = 0
            byte[] badLength = currentPage(h, 0x0A);
            badLength[1] = 5;
            assertThat(h.out(cdb(0x15, 0x10, 0, 0, 16, 0), select6(badLength)).ascAscq())
                    .isEqualTo(Asc.INVALID_FIELD_IN_PARAMETER_LIST);
        }
    }

    @Test
    void wceOffViaModeSelect10() {
        try (Harness h = new Harness()) {
            byte[] caching = currentPage(h, 0x08);
            caching[2] &= ~0x04;
            byte[] list = new byte[8 + caching.length];
            System.arraycopy(caching, 0, list, 8, caching.length);
            TestFabric.Result r = h.out(cdb(0x55, 0x10, 0, 0, 0, 0, 0, 0, list.length, 0), list);
            assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.device.modePages().writeCacheEnabled()).isFalse();
        }
    }
}
