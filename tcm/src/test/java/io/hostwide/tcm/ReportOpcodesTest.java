package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.tcm.core.CommandTables;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.lu.DeviceAttributes;
import org.junit.jupiter.api.Test;

import static io.hostwide.tcm.Harness.cdb;
import static org.assertj.core.api.Assertions.assertThat;

/** REPORT SUPPORTED OPERATION CODES (SPC-4 §6.35) and REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS (§6.36). */
class ReportOpcodesTest {

    static byte[] rsoc(int rctd, int options, int opcode, int sa, int alloc) {
        return cdb(0xA3, 0x0C, rctd << 7 | options, opcode, sa >>> 8, sa & 0xFF, alloc >>> 24, alloc >>> 16 & 0xFF,
                alloc >>> 8 & 0xFF, alloc & 0xFF, 0, 0);
    }

    @Test
    void allCommandsListMatchesTheTableAndEachAnswersOneCommand() {
        try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true))) {
            byte[] d = h.in(rsoc(0, 0, 0, 0, 65536), 65536).data();
            int len = (int) BigEndian.u32(d, 0);
            assertThat(len % 8).isZero();
            assertThat(len / 8).isEqualTo(h.core.commandTable(h.device).all().size());
            for (int p = 4; p < 4 + len; p += 8) {
                int op = d[p] & 0xFF;
                boolean servactv = (d[p + 5] & 0x01) != 0;
                int sa = BigEndian.u16(d, p + 2);
                int cdbLen = BigEndian.u16(d, p + 6);
                TestFabric.Result one = h.in(rsoc(0, servactv ? 2 : 1, op, sa, 512), 512);
                assertThat(one.status()).as("opcode %02x/%02x", op, sa).isEqualTo(ScsiStatus.GOOD);
                byte[] o = one.data();
                assertThat(o[1] & 0x07).isEqualTo(3);
                assertThat(BigEndian.u16(o, 2)).isEqualTo(cdbLen);
                assertThat(o[4] & 0xFF).isEqualTo(op);
                // the wrong one-command form for this opcode is an invalid field
                assertThat(h.in(rsoc(0, servactv ? 1 : 2, op, sa, 512), 512).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
                if (!servactv) {
                    assertThat(sa).isZero();
                }
            }
        }
    }

    @Test
    void rctdAddsTimeoutDescriptors() {
        try (Harness h = new Harness()) {
            byte[] d = h.in(rsoc(1, 0, 0, 0, 65536), 65536).data();
            int len = (int) BigEndian.u32(d, 0);
            assertThat(len % 20).isZero();
            for (int p = 4; p < 4 + len; p += 20) {
                assertThat(d[p + 5] & 0x02).isEqualTo(0x02); // CTDP
                assertThat(BigEndian.u16(d, p + 8)).isEqualTo(0x0A);
                assertThat(BigEndian.u32(d, p + 16)).isGreaterThanOrEqualTo(BigEndian.u32(d, p + 12));
            }
            byte[] one = h.in(rsoc(1, 1, 0x28, 0, 512), 512).data();
            assertThat(one[1] & 0x80).isEqualTo(0x80);
            assertThat(one).hasSize(4 + 10 + 12);
            assertThat(BigEndian.u32(one, 4 + 10 + 8)).isEqualTo(30);
        }
    }

    @Test
    void unsupportedAndReservedOptions() {
        try (Harness h = new Harness()) {
            byte[] none = h.in(rsoc(0, 1, 0xC0, 0, 512), 512).data();
            assertThat(none).containsExactly(0, 1, 0, 0);
            assertThat(h.in(rsoc(0, 3, 0x28, 7, 512), 512).data()[1] & 0x07).isEqualTo(3); // 011b, no SA opcode
            assertThat(h.in(rsoc(0, 3, 0x9E, 0x10, 512), 512).data()[1] & 0x07).isEqualTo(3);
            assertThat(h.in(rsoc(0, 3, 0x9E, 0x1A, 512), 512).data()[1] & 0x07).isEqualTo(1);
            for (int opt = 4; opt < 8; opt++) {
                assertThat(h.in(rsoc(0, opt, 0, 0, 512), 512).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            }
            for (int alloc = 0; alloc < 64; alloc++) {
                assertThat(h.in(rsoc(0, 0, 0, 0, alloc), alloc).data()).hasSize(alloc);
            }
        }
    }

    @Test
    void usageDataMarksTheControlByte() {
        for (CommandDescriptor d : CommandTables.full().all()) {
            assertThat(d.usage()[0] & 0xFF).isEqualTo(d.opcode());
            assertThat(d.usage()[d.cdbLength() - 1]).as(d.name()).isEqualTo((byte) 0x07);
            assertThat(d.nominalTimeout()).as(d.name()).isPositive();
        }
    }

    @Test
    void taskManagementReportFollowsTheInstalledLayer() {
        try (Harness h = new Harness()) {
            byte[] c = cdb(0xA3, 0x0D, 0x80, 0, 0, 0, 0, 0, 0, 16, 0, 0);
            // the task manager of io.hostwide.tcm.tmf: ATS ATSS CTSS LURS QTS TRS / QUAS QTSS ITNRS
            assertThat(h.in(c, 16).data()).hasSize(16).startsWith(0xDE, 0x07, 0, 0x0C);
            h.core.supportedTaskManagement(0x8801);
            byte[] d = h.in(c, 16).data();
            assertThat(d[0] & 0xFF).isEqualTo(0x88);
            assertThat(d[1]).isEqualTo((byte) 1);
            assertThat(d[3]).isEqualTo((byte) 0x0C);
            assertThat(h.in(cdb(0xA3, 0x0D, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0), 16).data()).hasSize(4);
        }
    }
}
