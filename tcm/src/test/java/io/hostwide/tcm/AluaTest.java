package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseData;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.lu.AluaAccessState;
import io.hostwide.tcm.lu.AluaGroups;
import io.hostwide.tcm.lu.Lun;
import io.hostwide.tcm.lu.TargetPortGroup;
import io.hostwide.tcm.port.TargetPort;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static io.hostwide.tcm.Harness.cdb;
import static org.assertj.core.api.Assertions.assertThat;

/** ALUA (SPC-4 §5.15): INQUIRY TPGS, REPORT/SET TARGET PORT GROUPS bytes, the per-state rules, UAs. */
class AluaTest {
    static byte[] rtpg(int format, int alloc) {
        byte[] c = cdb(0xA3, format << 5 | 0x0A, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        BigEndian.put32(c, 6, alloc);
        return c;
    }

    static byte[] stpg(int length) {
        byte[] c = cdb(0xA4, 0x0A, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        BigEndian.put32(c, 6, length);
        return c;
    }

    /** Harness plus a second port exporting the same device in group 1. */
    static final class Two implements AutoCloseable {
        final Harness h = new Harness();
        final TargetPort port2 = h.core.addPort(h.target, 2, 5);
        final Lun lun2 = port2.addLun(0, h.device);
        final AluaGroups alua = h.device.alua();
        final TargetPortGroup g1 = alua.addGroup(1, "secondary");
        final Nexus a = Nexus.first(h);
        final Nexus b;

        Two() {
            port2.demoMode(true, false);
            alua.assign(lun2, g1);
            b = new Nexus(h, h.core.openSession(port2, h.fabric, "iqn.2026-12.io.hostwide:b", "iqn.2026-12.io.hostwide:b,i,0x01"));
        }

        @Override
        public void close() { h.close(); }
    }

    @Test
    void standardInquiryAnnouncesImplicitAndExplicitAlua() {
        try (Harness h = new Harness()) {
            byte[] d = h.in(cdb(0x12, 0, 0, 0, 36, 0), 36).data();
            assertThat(d[5] & 0x30).isEqualTo(0x30);
            assertThat(d[5] & 0x08).as("3PC").isEqualTo(0x08);
        }
    }

    @Test
    void reportTargetPortGroupsBothFormats() {
        try (Two t = new Two()) {
            byte[] d = Nexus.ok(t.a.in(rtpg(0, 1024), 1024)).data();
            assertThat(d).hasSize(4 + 12 + 12);
            assertThat(BigEndian.u32(d, 0)).isEqualTo(24);
            // group 0: AO, supported T O U S AN AO, id 0, status none, one port: relative id 1
            assertThat(d).containsSubsequence(0x00, 0xCF, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1);
            assertThat(d[16]).isEqualTo((byte) 0x00);
            assertThat(BigEndian.u16(d, 18)).isEqualTo(1);
            assertThat(d[23]).isEqualTo((byte) 1);
            assertThat(BigEndian.u16(d, 26)).isEqualTo(t.port2.relativePortId());

            t.h.device.defaultPortGroup().implicitTransitionSeconds(10); // nexus a's port is in group 0
            t.g1.implicitTransitionSeconds(30);
            byte[] e = Nexus.ok(t.a.in(rtpg(1, 1024), 1024)).data();
            assertThat(e).hasSize(8 + 24);
            assertThat(BigEndian.u32(e, 0)).isEqualTo(28);
            assertThat(e[4]).isEqualTo((byte) 0x10);
            assertThat(e[5]).isEqualTo((byte) 10);

            TestFabric.Result cut = t.a.in(rtpg(0, 8), 8);
            assertThat(cut.data()).hasSize(8);
            assertThat(BigEndian.u32(cut.data(), 0)).as("full length even when truncated").isEqualTo(24);
            assertThat(t.a.in(rtpg(2, 1024), 1024).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
        }
    }

    /** SPC-4 §5.15.2.4: what each state lets through, and with which sense. */
    @Test
    void stateSweep() {
        int[][] cases = {
                // state, READ(10) ASC (0 = GOOD), MODE SENSE allowed, RTPG allowed
                {AluaAccessState.ACTIVE_NON_OPTIMIZED, 0, 1, 1},
                {AluaAccessState.STANDBY, Asc.LOGICAL_UNIT_NOT_READY_TARGET_PORT_IN_STANDBY_STATE, 1, 1},
                {AluaAccessState.UNAVAILABLE, Asc.LOGICAL_UNIT_NOT_READY_TARGET_PORT_IN_UNAVAILABLE_STATE, 0, 1},
                {AluaAccessState.TRANSITIONING, Asc.LOGICAL_UNIT_NOT_READY_ASYMMETRIC_ACCESS_STATE_TRANSITION, 0, 1},
                {AluaAccessState.OFFLINE, Asc.LOGICAL_UNIT_NOT_READY_OFFLINE, 0, 0},
                {AluaAccessState.ACTIVE_OPTIMIZED, 0, 1, 1},
        };
        try (Two t = new Two()) {
            byte[] before = t.b.in(Harness.read10(5, 1), 512).data();
            for (int[] c : cases) {
                assertThat(t.alua.transition(t.g1, c[0])).isTrue();
                assertThat(t.b.drainUnitAttentions()).containsExactly(Asc.ASYMMETRIC_ACCESS_STATE_CHANGED);
                assertThat(t.a.drainUnitAttentions()).containsExactly(Asc.ASYMMETRIC_ACCESS_STATE_CHANGED);
                TestFabric.Result read = t.b.in(Harness.read10(5, 1), 512);
                TestFabric.Result write = t.b.out(Harness.write10(5, 1), Harness.pattern(512, 9));
                if (c[1] == 0) {
                    assertThat(read.status()).isEqualTo(ScsiStatus.GOOD);
                    assertThat(write.status()).isEqualTo(ScsiStatus.GOOD);
                    t.a.out(Harness.write10(5, 1), before);
                } else {
                    for (TestFabric.Result r : new TestFabric.Result[] {read, write}) {
                        assertThat(r.senseKey()).isEqualTo(SenseKey.NOT_READY);
                        assertThat(r.ascAscq()).isEqualTo(c[1]);
                    }
                    assertThat(t.a.in(Harness.read10(5, 1), 512).data()).as("rejected write changed nothing")
                            .isEqualTo(before);
                }
                assertThat(t.b.in(cdb(0x12, 0, 0, 0, 36, 0), 36).status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(t.b.in(cdb(0xA0, 0, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0), 64).status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(t.b.in(cdb(0x1A, 0, 0x3F, 0, 255, 0), 255).status() == ScsiStatus.GOOD).isEqualTo(c[2] == 1);
                assertThat(t.b.in(rtpg(0, 256), 256).status() == ScsiStatus.GOOD).isEqualTo(c[3] == 1);
                assertThat(t.a.in(Harness.read10(5, 1), 512).status()).as("port 1 stays active").isEqualTo(ScsiStatus.GOOD);
                byte[] d = Nexus.ok(t.a.in(rtpg(0, 1024), 1024)).data();
                assertThat(d[16] & 0x0F).isEqualTo(c[0]);
                assertThat(d[21]).as("status: altered by implicit ALUA").isEqualTo((byte) 0x02);
            }
            assertThat(t.alua.transition(t.g1, AluaAccessState.ACTIVE_OPTIMIZED)).as("same state: no-op").isFalse();
            assertThat(t.b.drainUnitAttentions()).isEmpty();
        }
    }

    @Test
    void setTargetPortGroups() {
        try (Two t = new Two()) {
            byte[] p = new byte[8];
            p[4] = 0x02;            // standby
            p[7] = 1;               // group 1
            assertThat(t.a.out(stpg(8), p).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(t.g1.accessState()).isEqualTo(new AluaAccessState(AluaAccessState.STANDBY,
                    AluaAccessState.STATUS_EXPLICIT, false));
            assertThat(t.a.drainUnitAttentions()).as("the sender is not told").isEmpty();
            assertThat(t.b.drainUnitAttentions()).containsExactly(Asc.ASYMMETRIC_ACCESS_STATE_CHANGED);
            assertThat(t.b.in(Harness.read10(0, 1), 512).ascAscq())
                    .isEqualTo(Asc.LOGICAL_UNIT_NOT_READY_TARGET_PORT_IN_STANDBY_STATE);
            // STPG itself runs in standby: the standby port brings itself back
            p[4] = 0x00;
            assertThat(t.b.out(stpg(8), p).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(t.b.in(Harness.read10(0, 1), 512).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    @Test
    void badSetTargetPortGroupsChangesNothing() {
        try (Two t = new Two()) {
            byte[] p = new byte[12];
            p[4] = 0x02;
            p[7] = 1;
            p[8] = 0x0F;            // transitioning may not be requested
            TestFabric.Result r = t.a.out(stpg(12), p);
            assertThat(r.ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_PARAMETER_LIST);
            assertThat(r.fieldPointer()).isEqualTo(SenseData.fieldPointer(false, 8, 3));
            p[8] = 0x00;
            p[11] = 9;              // no such group
            assertThat(t.a.out(stpg(12), p).ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_PARAMETER_LIST);
            assertThat(t.a.out(stpg(6), new byte[6]).ascAscq()).isEqualTo(Asc.PARAMETER_LIST_LENGTH_ERROR);
            assertThat(t.g1.accessState().state()).isEqualTo(AluaAccessState.ACTIVE_OPTIMIZED);
            assertThat(t.b.drainUnitAttentions()).isEmpty();
        }
    }

    @Test
    void movingALunToAnotherGroupUpdatesVpd83() {
        try (Two t = new Two()) {
            byte[] vpd = Nexus.ok(t.b.in(cdb(0x12, 1, 0x83, 0, 255, 0), 255)).data();
            assertThat(tpgDesignator(vpd)).isEqualTo(1);
            t.alua.assign(t.lun2, t.h.device.defaultPortGroup());
            assertThat(t.b.drainUnitAttentions()).containsExactly(Asc.INQUIRY_DATA_HAS_CHANGED);
            vpd = Nexus.ok(t.b.in(cdb(0x12, 1, 0x83, 0, 255, 0), 255)).data();
            assertThat(tpgDesignator(vpd)).isEqualTo(0);
        }
    }

    private static int tpgDesignator(byte[] vpd) {
        for (int p = 4; p + 4 <= vpd.length; p += 4 + (vpd[p + 3] & 0xFF)) {
            if ((vpd[p + 1] & 0x0F) == 0x5) {
                return BigEndian.u16(vpd, p + 6);
            }
        }
        throw new AssertionError("no target port group designator");
    }

    /** The state record is swapped whole: a reader never sees anything but the states written (seed 002). */
    @Test
    void concurrentFlipsAreSeenWhole() throws Exception {
        try (Two t = new Two()) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<String> bad = new AtomicReference<>();
            Thread flipper = new Thread(() -> {
                boolean standby = false;
                while (!stop.get()) {
                    standby = !standby;
                    t.alua.transition(t.g1, standby ? AluaAccessState.STANDBY : AluaAccessState.ACTIVE_OPTIMIZED);
                    t.alua.assign(t.lun2, standby ? t.h.device.defaultPortGroup() : t.g1);
                }
            });
            flipper.start();
            for (int i = 0; i < 3000; i++) {
                TestFabric.Result r = t.b.in(Harness.read10(0, 1), 512);
                boolean ok = r.status() == ScsiStatus.GOOD || r.senseKey() == SenseKey.UNIT_ATTENTION
                        || r.ascAscq() == Asc.LOGICAL_UNIT_NOT_READY_TARGET_PORT_IN_STANDBY_STATE;
                if (!ok) {
                    bad.set(r.toString());
                }
            }
            stop.set(true);
            flipper.join();
            assertThat(bad.get()).isNull();
        }
    }
}
