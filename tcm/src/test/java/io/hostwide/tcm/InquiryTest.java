package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseData;
import io.hostwide.scsi.spec.VpdPage;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.TargetCommand;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.hostwide.tcm.Harness.cdb;
import static org.assertj.core.api.Assertions.assertThat;

/** INQUIRY standard data and VPD pages (SPC-4 §6.6, §7.8; SBC-4 §6.6), byte for byte. */
class InquiryTest {

    private static byte[] inquiry(int evpd, int page, int alloc) {
        return cdb(0x12, evpd, page, alloc >>> 8, alloc & 0xFF, 0);
    }

    @Test
    void standardDataFields() {
        try (Harness h = new Harness(new DeviceAttributes().removable(true))) {
            byte[] d = h.in(inquiry(0, 0, 255), 255).data();
            assertThat(d).hasSize(96);
            assertThat(d[0]).isZero(); // connected, direct access block
            assertThat(d[1] & 0x80).isEqualTo(0x80); // RMB
            assertThat(d[2]).isEqualTo((byte) 0x06); // SPC-4
            assertThat(d[3] & 0x0F).isEqualTo(2);
            assertThat(d[4] & 0xFF).isEqualTo(91);
            assertThat(d[7] & 0x02).isEqualTo(0x02); // CMDQUE
            assertThat(new String(d, 8, 8, StandardCharsets.US_ASCII)).isEqualTo("HOSTWIDE");
            assertThat(BigEndian.u16(d, 58)).isEqualTo(0x00A0);
            assertThat(BigEndian.u16(d, 60)).isEqualTo(0x0460);
            assertThat(BigEndian.u16(d, 64)).isEqualTo(0x0960);
        }
    }

    @Test
    void everyAllocationLengthTruncatesAndNeverFails() {
        try (Harness h = new Harness()) {
            for (int alloc = 0; alloc <= 300; alloc++) {
                TestFabric.Result r = h.in(inquiry(0, 0, alloc), alloc);
                assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(r.data()).hasSize(Math.min(alloc, 96));
                assertThat(r.residualKind()).isEqualTo(alloc > 96 ? TargetCommand.RESIDUAL_UNDERFLOW : TargetCommand.RESIDUAL_NONE);
                for (int page : Vpd()) {
                    TestFabric.Result v = h.in(inquiry(1, page, alloc), alloc);
                    assertThat(v.status()).as("page %02x alloc %d", page, alloc).isEqualTo(ScsiStatus.GOOD);
                    assertThat(v.data().length).isLessThanOrEqualTo(alloc);
                }
            }
        }
    }

    private static int[] Vpd() { return new int[] {0x00, 0x80, 0x83, 0x86, 0xB0, 0xB1, 0xB2}; }

    @Test
    void pageCodeWithoutEvpdAndUnknownPagesAreInvalidFields() {
        try (Harness h = new Harness()) {
            TestFabric.Result r = h.in(inquiry(0, 0x80, 255), 255);
            assertThat(r.ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            assertThat(r.fieldPointer()).isEqualTo(SenseData.fieldPointer(true, 2, 7));
            TestFabric.Result u = h.in(inquiry(1, 0xC5, 255), 255);
            assertThat(u.ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            TestFabric.Result cmddt = h.in(inquiry(2, 0, 255), 255); // CMDDT is obsolete: reserved
            assertThat(cmddt.fieldPointer()).isEqualTo(SenseData.fieldPointer(true, 1, 1));
        }
    }

    @Test
    void supportedPagesAreSortedAndAllAnswer() {
        try (Harness h = new Harness()) {
            byte[] d = h.in(inquiry(1, 0, 255), 255).data();
            int n = BigEndian.u16(d, 2);
            List<Integer> pages = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                pages.add(d[4 + i] & 0xFF);
            }
            assertThat(pages).isSorted().contains(0x00, 0x80, 0x83, 0x86, 0xB0, 0xB1, 0xB2);
            for (int p : pages) {
                byte[] v = h.in(inquiry(1, p, 1024), 1024).data();
                assertThat(v[1] & 0xFF).isEqualTo(p);
                assertThat(BigEndian.u16(v, 2) + 4).isEqualTo(v.length);
            }
        }
    }

    /**
     * The Supported VPD Pages list names exactly the pages served: every other page code is INVALID FIELD IN CDB.
     * Referrals (B3h, SBC-4 §6.6.6) are not supported, so B3h is neither listed nor served and the Extended
     * INQUIRY Data page's R_SUP (byte 8 bit 4, SPC-4 §7.8.7) is 0.
     */
    @Test
    void supportedPagesAreExactlyTheServedOnesAndReferralsAreNotClaimed() {
        try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true))) {
            byte[] d = h.in(inquiry(1, 0, 255), 255).data();
            List<Integer> listed = new ArrayList<>();
            for (int i = 0; i < BigEndian.u16(d, 2); i++) {
                listed.add(d[4 + i] & 0xFF);
            }
            assertThat(listed).doesNotContain(VpdPage.REFERRALS);
            for (int page = 0; page < 256; page++) {
                TestFabric.Result r = h.in(inquiry(1, page, 1024), 1024);
                if (listed.contains(page)) {
                    assertThat(r.status()).as("page %02x", page).isEqualTo(ScsiStatus.GOOD);
                } else {
                    assertThat(r.ascAscq()).as("page %02x", page).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
                }
            }
            byte[] ext = h.in(inquiry(1, 0x86, 255), 255).data();
            assertThat(ext[8] & 0x10).as("R_SUP").isZero();
        }
    }

    @Test
    void deviceIdentificationDesignators() {
        try (Harness h = new Harness()) {
            byte[] d = h.in(inquiry(1, 0x83, 1024), 1024).data();
            int end = 4 + BigEndian.u16(d, 2);
            List<Integer> types = new ArrayList<>();
            for (int p = 4; p < end; p += 4 + (d[p + 3] & 0xFF)) {
                int type = d[p + 1] & 0x0F;
                int assoc = (d[p + 1] >>> 4) & 0x03;
                types.add(assoc << 4 | type);
                if (type == VpdPage.Designator.TYPE_NAA) {
                    assertThat((d[p + 4] & 0xF0) >>> 4).isEqualTo(5);
                    assertThat(BigEndian.s64(d, p + 4)).isEqualTo(h.device.naa());
                }
                if (type == VpdPage.Designator.TYPE_RELATIVE_TARGET_PORT) {
                    assertThat(BigEndian.u16(d, p + 6)).isEqualTo(h.port.relativePortId());
                    assertThat(d[p] >>> 4 & 0x0F).isEqualTo(5); // iSCSI protocol identifier, PIV set
                    assertThat(d[p + 1] & 0x80).isEqualTo(0x80);
                }
                if (type == VpdPage.Designator.TYPE_SCSI_NAME_STRING && assoc == 1) {
                    String name = new String(d, p + 4, d[p + 3] & 0xFF, StandardCharsets.UTF_8).replace("\0", "");
                    assertThat(name).isEqualTo("iqn.2026-12.io.hostwide:test,t,0x0001");
                    assertThat((d[p + 3] & 0xFF) % 4).isZero();
                }
            }
            assertThat(types).contains(0x03, 0x01, 0x14, 0x15, 0x18, 0x28);
        }
    }

    @Test
    void blockLimitsAndProvisioningFollowTheDevice() {
        try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true).maxCompareAndWriteLength(8))) {
            byte[] b0 = h.in(inquiry(1, 0xB0, 255), 255).data();
            assertThat(b0).hasSize(64);
            assertThat(b0[5]).isEqualTo((byte) 8);
            assertThat(BigEndian.u32(b0, 20)).isPositive(); // MAXIMUM UNMAP LBA COUNT
            assertThat(BigEndian.u32(b0, 24)).isPositive();
            assertThat(BigEndian.u32(b0, 44)).isPositive(); // MAXIMUM ATOMIC TRANSFER LENGTH
            byte[] b2 = h.in(inquiry(1, 0xB2, 255), 255).data();
            assertThat(b2[5] & 0xE0).isEqualTo(0xE0); // LBPU LBPWS LBPWS10
            assertThat((b2[5] >>> 2) & 0x07).isEqualTo(1); // LBPRZ
            assertThat(b2[6] & 0x07).isEqualTo(2); // thin
        }
        try (Harness h = new Harness(new DeviceAttributes(), new RamBackstore(1 << 20, 4096))) {
            byte[] b0 = h.in(inquiry(1, 0xB0, 255), 255).data();
            assertThat(BigEndian.u32(b0, 20)).isZero();
            byte[] b2 = h.in(inquiry(1, 0xB2, 255), 255).data();
            assertThat(b2[5]).isZero();
            assertThat(b2[6] & 0x07).isZero();
        }
    }

    @Test
    void unitSerialNumberIsStableAscii() {
        try (Harness h = new Harness(new DeviceAttributes().unitSerial("SN0001"))) {
            byte[] d = h.in(inquiry(1, 0x80, 255), 255).data();
            assertThat(new String(d, 4, d.length - 4, StandardCharsets.US_ASCII)).isEqualTo("SN0001");
        }
    }
}
