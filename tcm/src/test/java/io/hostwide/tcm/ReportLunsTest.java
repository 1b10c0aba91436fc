package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.port.NodeAcl;
import io.hostwide.tcm.spi.TargetCommand;
import org.junit.jupiter.api.Test;

import static io.hostwide.tcm.Harness.cdb;
import static org.assertj.core.api.Assertions.assertThat;

/** REPORT LUNS (SPC-4 §6.33) and per-initiator ACL mappings. */
class ReportLunsTest {

    private static byte[] reportLuns(int select, int alloc) {
        return cdb(0xA0, 0, select, 0, 0, 0, alloc >>> 24, alloc >>> 16 & 0xFF, alloc >>> 8 & 0xFF, alloc & 0xFF, 0, 0);
    }

    @Test
    void selectReportVariants() {
        try (Harness h = new Harness()) {
            h.port.addLun(7, h.core.addDevice("d7", new RamBackstore(1 << 20, 512), new DeviceAttributes()));
            h.none(cdb(0, 0, 0, 0, 0, 0)); // consume REPORTED LUNS DATA HAS CHANGED
            byte[] all = h.in(reportLuns(0, 4096), 4096).data();
            assertThat(BigEndian.u32(all, 0)).isEqualTo(16);
            assertThat(BigEndian.s64(all, 8)).isZero();
            assertThat(BigEndian.s64(all, 16)).isEqualTo(0x0007_0000_0000_0000L);
            byte[] wl = h.in(reportLuns(1, 4096), 4096).data();
            assertThat(BigEndian.u32(wl, 0)).isEqualTo(8);
            assertThat(BigEndian.s64(wl, 8)).isEqualTo(0xC101_0000_0000_0000L);
            assertThat(BigEndian.u32(h.in(reportLuns(2, 4096), 4096).data(), 0)).isEqualTo(24);
            for (int sel : new int[] {0x10, 0x11, 0x12}) {
                assertThat(BigEndian.u32(h.in(reportLuns(sel, 4096), 4096).data(), 0)).isZero();
            }
            for (int sel : new int[] {3, 0x0F, 0x13, 0xFF}) {
                assertThat(h.in(reportLuns(sel, 4096), 4096).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            }
        }
    }

    @Test
    void allocationLengthSweep() {
        try (Harness h = new Harness()) {
            for (int alloc = 0; alloc < 64; alloc++) {
                TestFabric.Result r = h.in(reportLuns(0, alloc), alloc);
                assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(r.data()).hasSize(Math.min(alloc, 16));
            }
        }
    }

    @Test
    void aclMapsLunsUnderOtherNumbersAndReadOnly() {
        try (Harness h = new Harness()) {
            h.port.demoMode(false, false);
            NodeAcl acl = h.port.addAcl("iqn.2026-12.io.hostwide:other").map(3, 0, true);
            Session s = h.newSession("iqn.2026-12.io.hostwide:other");
            assertThat(s.mappedLunNumbers()).containsExactly(3);
            TestFabric.Result w = h.fabric.run(s, LunAddress.encode(3), Harness.write10(0, 1),
                    512, TargetCommand.DIR_WRITE, new byte[512]);
            assertThat(w.ascAscq()).isEqualTo(Asc.WRITE_PROTECTED);
            TestFabric.Result r = h.fabric.run(s, LunAddress.encode(3), Harness.read10(0, 1),
                    512, TargetCommand.DIR_READ, null);
            assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
            acl.unmap(3);
            assertThat(s.mappedLunNumbers()).isEmpty();
        }
    }

    @Test
    void initiatorWithoutAclIsRefusedOutsideDemoMode() {
        try (Harness h = new Harness()) {
            h.port.demoMode(false, false);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> h.newSession("iqn.2026-12.io.hostwide:stranger"))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
