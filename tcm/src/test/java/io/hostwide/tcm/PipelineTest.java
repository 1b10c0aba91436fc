package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseData;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.Fabric;
import io.hostwide.tcm.spi.TargetCommand;
import org.junit.jupiter.api.Test;

import static io.hostwide.tcm.Harness.cdb;
import static org.assertj.core.api.Assertions.assertThat;

/** The transport-facing contract: LUN lookup, CDB checks, residuals (SAM-5 §5.4.3), unit attentions. */
class PipelineTest {

    @Test
    void writeThenReadReturnsTheData() {
        try (Harness h = new Harness()) {
            byte[] data = Harness.pattern(2 * Harness.BLOCK, 1);
            assertThat(h.out(Harness.write10(10, 2), data).status()).isEqualTo(ScsiStatus.GOOD);
            TestFabric.Result r = h.in(Harness.read10(10, 2), 2 * Harness.BLOCK);
            assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(r.data()).isEqualTo(data);
            assertThat(r.residualKind()).isEqualTo(TargetCommand.RESIDUAL_NONE);
        }
    }

    // libiscsi iSCSIResiduals.Read10Residuals: EDTL 0 / 10000 / 200 for a one-block read
    @Test
    void readResidualsFollowTheExpectedLength() {
        try (Harness h = new Harness()) {
            TestFabric.Result zero = h.in(Harness.read10(0, 1), 0);
            assertThat(zero.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(zero.residualKind()).isEqualTo(TargetCommand.RESIDUAL_OVERFLOW);
            assertThat(zero.residualCount()).isEqualTo(Harness.BLOCK);
            assertThat(zero.data()).isEmpty();

            TestFabric.Result big = h.in(Harness.read10(0, 1), 10000);
            assertThat(big.data()).hasSize(Harness.BLOCK);
            assertThat(big.residualKind()).isEqualTo(TargetCommand.RESIDUAL_UNDERFLOW);
            assertThat(big.residualCount()).isEqualTo(10000 - Harness.BLOCK);

            TestFabric.Result small = h.in(Harness.read10(0, 1), 200);
            assertThat(small.data()).hasSize(200);
            assertThat(small.residualKind()).isEqualTo(TargetCommand.RESIDUAL_OVERFLOW);
            assertThat(small.residualCount()).isEqualTo(Harness.BLOCK - 200);
        }
    }

    // libiscsi Read10Invalid: a READ flagged as a write on the transport is GOOD, nothing is sent
    @Test
    void readFlaggedAsWriteTransfersNothing() {
        try (Harness h = new Harness()) {
            TestFabric.Result r = h.fabric.run(h.session, 0, Harness.read10(0, 1), Harness.BLOCK, TargetCommand.DIR_WRITE,
                    new byte[Harness.BLOCK]);
            assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(r.data()).isEmpty();
            assertThat(r.residualKind()).isEqualTo(TargetCommand.RESIDUAL_OVERFLOW);
        }
    }

    // libiscsi iSCSIResiduals.Write10Residuals / WriteVerify10Residuals (RFC 7143 §11.4.5.2, FCP-4 §9.4.2):
    // SPDTL > EDTL by whole blocks is GOOD, only the EDTL blocks are written, overflow residual; EDTL 0 writes
    // nothing; EDTL not a whole number of blocks is refused untouched; SPDTL < EDTL writes SPDTL (underflow)
    @Test
    void writeOverflowWritesOnlyTheExpectedBlocks() {
        for (int opcode : new int[] {0x2A, 0x2E}) { // WRITE(10), WRITE AND VERIFY(10)
            try (Harness h = new Harness()) {
                byte[] a = Harness.pattern(2 * Harness.BLOCK, 1);
                assertThat(h.out(Harness.write10(0, 2), a).status()).isEqualTo(ScsiStatus.GOOD);
                byte[] cdb = Harness.write10(0, 2);
                cdb[0] = (byte) opcode;
                byte[] b = Harness.pattern(Harness.BLOCK, 3);
                TestFabric.Result r = h.out(cdb, b);
                assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(r.residualKind()).isEqualTo(TargetCommand.RESIDUAL_OVERFLOW);
                assertThat(r.residualCount()).isEqualTo(Harness.BLOCK);
                byte[] now = h.in(Harness.read10(0, 2), 2 * Harness.BLOCK).data();
                assertThat(java.util.Arrays.copyOf(now, Harness.BLOCK)).isEqualTo(b);
                assertThat(java.util.Arrays.copyOfRange(now, Harness.BLOCK, 2 * Harness.BLOCK))
                        .isEqualTo(java.util.Arrays.copyOfRange(a, Harness.BLOCK, 2 * Harness.BLOCK));

                TestFabric.Result none = h.fabric.run(h.session, 0, Harness.write10(0, 1), 0,
                        TargetCommand.DIR_WRITE, new byte[0]);
                assertThat(none.status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(none.residualKind()).isEqualTo(TargetCommand.RESIDUAL_OVERFLOW);
                assertThat(none.residualCount()).isEqualTo(Harness.BLOCK);
                assertThat(h.in(Harness.read10(0, 2), 2 * Harness.BLOCK).data()).isEqualTo(now);

                TestFabric.Result part = h.out(Harness.write10(0, 1), new byte[200]);
                assertThat(part.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
                assertThat(part.ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_INFORMATION_UNIT);
                assertThat(part.residualKind()).isEqualTo(TargetCommand.RESIDUAL_OVERFLOW);
                assertThat(part.residualCount()).isEqualTo(Harness.BLOCK - 200);
                assertThat(h.in(Harness.read10(0, 2), 2 * Harness.BLOCK).data()).isEqualTo(now);

                byte[] data = Harness.pattern(2 * Harness.BLOCK, 4);
                TestFabric.Result u = h.out(Harness.write10(0, 1), data);
                assertThat(u.status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(u.residualKind()).isEqualTo(TargetCommand.RESIDUAL_UNDERFLOW);
                assertThat(u.residualCount()).isEqualTo(Harness.BLOCK);
                assertThat(h.in(Harness.read10(0, 1), Harness.BLOCK).data())
                        .isEqualTo(java.util.Arrays.copyOf(data, Harness.BLOCK));
            }
        }
    }

    @Test
    void unmappedLunGetsLogicalUnitNotSupportedButInquiryAnswers() {
        try (Harness h = new Harness()) {
            long lun5 = LunAddress.encode(5);
            TestFabric.Result r = h.fabric.run(h.session, lun5, Harness.read10(0, 1), 512, TargetCommand.DIR_READ, null);
            assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
            assertThat(r.ascAscq()).isEqualTo(Asc.LOGICAL_UNIT_NOT_SUPPORTED);
            TestFabric.Result inq = h.fabric.run(h.session, lun5, cdb(0x12, 0, 0, 0, 96, 0), 96, TargetCommand.DIR_READ, null);
            assertThat(inq.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(inq.data()[0] & 0xFF).isEqualTo(0x7F); // qualifier 011b, type 1Fh
            TestFabric.Result rs = h.fabric.run(h.session, lun5, cdb(0x03, 0, 0, 0, 18, 0), 18, TargetCommand.DIR_READ, null);
            assertThat(rs.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(SenseData.ascAscq(rs.data())).isEqualTo(Asc.LOGICAL_UNIT_NOT_SUPPORTED);
        }
    }

    @Test
    void reportLunsWellKnownLunAnswersReportLuns() {
        try (Harness h = new Harness()) {
            long wlun = LunAddress.encodeWellKnown(LunAddress.WLUN_REPORT_LUNS);
            TestFabric.Result r = h.fabric.run(h.session, wlun, cdb(0xA0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0), 256,
                    TargetCommand.DIR_READ, null);
            assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(r.data()).hasSize(16);
            TestFabric.Result tur = h.fabric.run(h.session, wlun, cdb(0, 0, 0, 0, 0, 0), 0, TargetCommand.DIR_NONE, null);
            assertThat(tur.ascAscq()).isEqualTo(Asc.INVALID_COMMAND_OPERATION_CODE);
            TestFabric.Result inq = h.fabric.run(h.session, wlun, cdb(0x12, 0, 0, 0, 36, 0), 36, TargetCommand.DIR_READ, null);
            assertThat(inq.data()[0]).isEqualTo((byte) 0x1E); // well-known logical unit
            TestFabric.Result rs = h.fabric.run(h.session, wlun, cdb(0x03, 0, 0, 0, 18, 0), 18, TargetCommand.DIR_READ, null);
            assertThat(SenseData.senseKey(rs.data())).isEqualTo(SenseKey.NO_SENSE);
        }
    }

    @Test
    void reservedBitsAndControlByteAreRejectedWithAFieldPointer() {
        try (Harness h = new Harness()) {
            TestFabric.Result tur = h.none(cdb(0, 0, 0, 0x10, 0, 0)); // byte 3 bit 4 reserved
            assertThat(tur.ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            assertThat(tur.fieldPointer()).isEqualTo(SenseData.fieldPointer(true, 3, 4));
            TestFabric.Result naca = h.none(cdb(0, 0, 0, 0, 0, 0x04));
            assertThat(naca.fieldPointer()).isEqualTo(SenseData.fieldPointer(true, 5, 2));
            TestFabric.Result rd = h.in(cdb(0x28, 0x01, 0, 0, 0, 0, 0, 0, 1, 0), 512); // obsolete bit 0
            assertThat(rd.fieldPointer()).isEqualTo(SenseData.fieldPointer(true, 1, 0));
        }
    }

    @Test
    void newNexusSeesPowerOnUnitAttentionOnceAndInquiryIsExempt() {
        try (Harness h = new Harness(new DeviceAttributes(), new RamBackstore(1 << 20, 512), true)) {
            assertThat(h.in(cdb(0x12, 0, 0, 0, 36, 0), 36).status()).isEqualTo(ScsiStatus.GOOD);
            TestFabric.Result first = h.none(cdb(0, 0, 0, 0, 0, 0));
            assertThat(first.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
            assertThat(first.senseKey()).isEqualTo(SenseKey.UNIT_ATTENTION);
            assertThat(first.ascAscq()).isEqualTo(Asc.POWER_ON_RESET_OR_BUS_DEVICE_RESET_OCCURRED);
            assertThat(h.none(cdb(0, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    @Test
    void requestSenseReportsAndClearsTheUnitAttention() {
        try (Harness h = new Harness(new DeviceAttributes(), new RamBackstore(1 << 20, 512), true)) {
            TestFabric.Result rs = h.in(cdb(0x03, 0, 0, 0, 252, 0), 252);
            assertThat(rs.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(rs.data()).hasSize(18);
            assertThat(SenseData.senseKey(rs.data())).isEqualTo(SenseKey.UNIT_ATTENTION);
            assertThat(h.none(cdb(0, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            TestFabric.Result none = h.in(cdb(0x03, 0x01, 0, 0, 252, 0), 252); // DESC=1
            assertThat(none.data()[0] & 0x7F).isEqualTo(0x72);
            assertThat(SenseData.senseKey(none.data())).isEqualTo(SenseKey.NO_SENSE);
        }
    }

    @Test
    void lunMapChangeRaisesReportedLunsDataHasChanged() {
        try (Harness h = new Harness()) {
            h.port.addLun(1, h.core.addDevice("dev1", new RamBackstore(1 << 20, 512), new DeviceAttributes()));
            TestFabric.Result r = h.none(cdb(0, 0, 0, 0, 0, 0));
            assertThat(r.ascAscq()).isEqualTo(Asc.REPORTED_LUNS_DATA_HAS_CHANGED);
            assertThat(h.session.mappedLunNumbers()).containsExactly(0, 1);
        }
    }

    @Test
    void acaTaskAttributeIsRejected() {
        try (Harness h = new Harness()) {
            TestFabric.Result r = h.fabric.run(h.session, 0, cdb(0, 0, 0, 0, 0, 0),
                    TaskAttribute.ACA, 0, TargetCommand.DIR_NONE, null);
            assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
            assertThat(r.senseKey()).isEqualTo(SenseKey.ILLEGAL_REQUEST);
        }
    }

    @Test
    void fabricMisuseOfTheCommandLifecycleIsCaught() {
        try (Harness h = new Harness()) {
            TargetCommand[] done = new TargetCommand[1];
            Fabric keep = new Fabric() {
                @Override public int protocolIdentifier() { return 5; }
                @Override public void complete(TargetCommand cmd) { done[0] = cmd; }
            };
            Session s = h.core.openSession(h.port, keep, "iqn.x:misuse", "iqn.x:misuse,i,0x1");
            TargetCommand c = s.newCommand().setup(0, cdb(0, 0, 0, 0, 0, 0), 0, 6, null, 1, 0, TargetCommand.DIR_NONE);
            s.submit(c);
            assertThat(done[0]).isSameAs(c);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.submit(c)).isInstanceOf(IllegalStateException.class);
            c.release();
            org.assertj.core.api.Assertions.assertThatThrownBy(c::release).isInstanceOf(IllegalStateException.class);
            TargetCommand unused = s.newCommand();
            unused.release(); // a command the fabric decided not to submit goes back too
            assertThat(s.newCommand()).isIn(c, unused);
        }
    }

    @Test
    void dumpShowsTheObjectTree() {
        try (Harness h = new Harness(new DeviceAttributes(), new RamBackstore(1 << 20, 512), true)) {
            String d = h.core.dump();
            assertThat(d).contains("target iqn.2026-12.io.hostwide:test", "port tpgt=1 rtpi=1 demo=true",
                    "lun 0 -> dev0", "device dev0 [ram", "wce=true", "(demo)", "ua_pending=1");
        }
    }

    @Test
    void anExceptionFromTheFabricsCompleteGoesBackToTheFabric() {
        try (Harness h = new Harness()) {
            Fabric throwing = new Fabric() {
                @Override public int protocolIdentifier() { return 5; }
                @Override public void complete(TargetCommand cmd) { throw new IllegalStateException("fabric bug"); }
            };
            Session s = h.core.openSession(h.port, throwing, "iqn.x:thrower", "iqn.x:thrower,i,0x1");
            TargetCommand c = s.newCommand().setup(0, cdb(0, 0, 0, 0, 0, 0), 0, 6, null, 1, 0, TargetCommand.DIR_NONE);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.submit(c)).hasMessage("fabric bug");
            assertThat(c.status()).isEqualTo(ScsiStatus.GOOD); // the result was not rewritten
        }
    }
}
