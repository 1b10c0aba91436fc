package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseData;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.TargetCommand;
import org.junit.jupiter.api.Test;

import static io.hostwide.tcm.Harness.BLOCK;
import static io.hostwide.tcm.Harness.cdb;
import static org.assertj.core.api.Assertions.assertThat;

/** Removable medium, START STOP UNIT, PREVENT ALLOW MEDIUM REMOVAL, write protection, READ DEFECT DATA. */
class MediumTest {

    static byte[] startStop(int immed, int powerCondition, int noFlush, int loej, int start) {
        return cdb(0x1B, immed, 0, 0, powerCondition << 4 | noFlush << 2 | loej << 1 | start, 0);
    }

    static final byte[] TUR = cdb(0, 0, 0, 0, 0, 0);

    static Harness removable() { return new Harness(new DeviceAttributes().removable(true)); }

    @Test
    void ejectAndLoad() {
        try (Harness h = removable()) {
            assertThat(h.none(startStop(1, 0, 0, 1, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            TestFabric.Result tur = h.none(TUR);
            assertThat(tur.senseKey()).isEqualTo(SenseKey.NOT_READY);
            assertThat(tur.ascAscq()).isEqualTo(Asc.MEDIUM_NOT_PRESENT);
            assertThat(h.in(Harness.read10(0, 1), BLOCK).ascAscq()).isEqualTo(Asc.MEDIUM_NOT_PRESENT);
            assertThat(h.out(Harness.write10(0, 1), new byte[BLOCK]).ascAscq()).isEqualTo(Asc.MEDIUM_NOT_PRESENT);
            assertThat(h.in(cdb(0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0), 8).ascAscq()).isEqualTo(Asc.MEDIUM_NOT_PRESENT);
            assertThat(SenseData.ascAscq(h.in(cdb(0x03, 0, 0, 0, 18, 0), 18).data())).isEqualTo(Asc.MEDIUM_NOT_PRESENT);
            assertThat(h.in(cdb(0x12, 0, 0, 0, 36, 0), 36).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.none(startStop(1, 0, 0, 1, 1)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.none(TUR).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    // libiscsi StartStopUnit.NoLoej / PwrCnd: without LOEJ, or with a power condition, the medium stays
    @Test
    void startWithoutLoejOrWithPowerConditionKeepsTheMedium() {
        try (Harness h = removable()) {
            for (int immed = 0; immed < 2; immed++) {
                for (int noFlush = 0; noFlush < 2; noFlush++) {
                    for (int start = 0; start < 2; start++) {
                        assertThat(h.none(startStop(immed, 0, noFlush, 0, start)).status()).isEqualTo(ScsiStatus.GOOD);
                        assertThat(h.none(TUR).status()).isEqualTo(ScsiStatus.GOOD);
                    }
                }
            }
            for (int pc = 1; pc < 16; pc++) {
                assertThat(h.none(startStop(1, pc, 0, 1, 0)).status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(h.none(TUR).status()).isEqualTo(ScsiStatus.GOOD);
            }
        }
    }

    // libiscsi PreventAllow.Eject
    @Test
    void preventBlocksEjectAndLoad() {
        try (Harness h = removable()) {
            assertThat(h.none(cdb(0x1E, 0, 0, 0, 1, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            TestFabric.Result ej = h.none(startStop(0, 0, 0, 1, 0));
            assertThat(ej.senseKey()).isEqualTo(SenseKey.ILLEGAL_REQUEST);
            assertThat(ej.ascAscq()).isEqualTo(Asc.MEDIUM_REMOVAL_PREVENTED);
            assertThat(h.none(TUR).status()).isEqualTo(ScsiStatus.GOOD);
            h.none(cdb(0x1E, 0, 0, 0, 0, 0));
            assertThat(h.none(startStop(0, 0, 0, 1, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            h.none(cdb(0x1E, 0, 0, 0, 1, 0));
            assertThat(h.none(startStop(0, 0, 0, 1, 1)).ascAscq()).isEqualTo(Asc.MEDIUM_REMOVAL_PREVENTED);
            h.none(cdb(0x1E, 0, 0, 0, 0, 0));
            assertThat(h.none(startStop(0, 0, 0, 1, 1)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.none(cdb(0x1E, 0, 0, 0, 2, 0)).fieldPointer()).isEqualTo(SenseData.fieldPointer(true, 4, 1));
        }
    }

    // libiscsi PreventAllow.ITNexusLoss / Logout: prevention belongs to the nexus
    @Test
    void preventionEndsWithTheNexusAndIsPerNexus() {
        try (Harness h = removable()) {
            Session other = h.newSession("iqn.2026-12.io.hostwide:other");
            assertThat(h.fabric.run(other, 0, cdb(0x1E, 0, 0, 0, 1, 0), 0, TargetCommand.DIR_NONE, null).status())
                    .isEqualTo(ScsiStatus.GOOD);
            h.none(cdb(0x1E, 0, 0, 0, 0, 0)); // this nexus allowing does not undo the other's prevention
            assertThat(h.none(startStop(0, 0, 0, 1, 0)).ascAscq()).isEqualTo(Asc.MEDIUM_REMOVAL_PREVENTED);
            other.close();
            assertThat(h.none(startStop(0, 0, 0, 1, 0)).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    @Test
    void nonRemovableRefusesLoej() {
        try (Harness h = new Harness()) {
            assertThat(h.none(startStop(0, 0, 0, 1, 0)).fieldPointer()).isEqualTo(SenseData.fieldPointer(true, 4, 1));
            assertThat(h.none(TUR).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    @Test
    void writeProtectedDeviceRejectsEveryWriteButReads() {
        try (Harness h = new Harness(new DeviceAttributes().writeProtect(true).thinProvisioning(true))) {
            byte[] one = new byte[BLOCK];
            assertThat(h.out(Harness.write10(0, 1), one).senseKey()).isEqualTo(SenseKey.DATA_PROTECT);
            assertThat(h.out(cdb(0x41, 0, 0, 0, 0, 0, 0, 0, 1, 0), one).ascAscq()).isEqualTo(Asc.WRITE_PROTECTED);
            assertThat(h.out(cdb(0x2E, 0, 0, 0, 0, 0, 0, 0, 1, 0), one).ascAscq()).isEqualTo(Asc.WRITE_PROTECTED);
            assertThat(h.in(Harness.read10(0, 1), BLOCK).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.none(cdb(0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(cdb(0x1A, 0x08, 0x3F, 0, 255, 0), 255).data()[2] & 0x80).isEqualTo(0x80);
        }
    }

    /**
     * libiscsi ReadOnly.ReadOnlySBC: WRITE SAME(10/16) with UNMAP and no Data-Out on a write-protected LU is DATA
     * PROTECT / WRITE PROTECTED (27h/00h), not a Data-Out length error (SBC-4 §4.11 before SAM-5 §5.4.3).
     */
    @Test
    void writeSameWithoutDataOnAWriteProtectedLuIsWriteProtected() {
        try (Harness h = new Harness(new DeviceAttributes().writeProtect(true).thinProvisioning(true))) {
            byte[] ws10 = cdb(0x41, 0x08, 0, 0, 0, 0, 0, 0, 1, 0);
            byte[] ws16 = cdb(0x93, 0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0);
            for (byte[] c : new byte[][] {ws10, ws16}) {
                TestFabric.Result r = h.fabric.run(h.session, 0, c, 0, TargetCommand.DIR_NONE, null);
                assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
                assertThat(r.senseKey()).isEqualTo(SenseKey.DATA_PROTECT);
                assertThat(r.ascAscq()).isEqualTo(Asc.WRITE_PROTECTED);
            }
        }
        try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true))) { // writable: a length error
            TestFabric.Result r = h.fabric.run(h.session, 0, cdb(0x41, 0x08, 0, 0, 0, 0, 0, 0, 1, 0), 0,
                    TargetCommand.DIR_NONE, null);
            assertThat(r.senseKey()).isEqualTo(SenseKey.ILLEGAL_REQUEST);
        }
    }

    @Test
    void readDefectDataIsAnEmptyList() {
        try (Harness h = new Harness()) {
            TestFabric.Result r10 = h.in(cdb(0x37, 0, 0x0D, 0, 0, 0, 0, 0, 255, 0), 255);
            assertThat(r10.data()).containsExactly(0, 0x0D, 0, 0);
            TestFabric.Result r12 = h.in(cdb(0xB7, 0x0D, 0, 0, 0, 0, 0, 0, 0, 255, 0, 0), 255);
            assertThat(r12.data()).containsExactly(0, 0x0D, 0, 0, 0, 0, 0, 0);
            assertThat(h.in(cdb(0x37, 0, 0x20, 0, 0, 0, 0, 0, 255, 0), 255).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
        }
    }
}
