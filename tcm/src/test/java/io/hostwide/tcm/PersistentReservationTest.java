package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseData;
import io.hostwide.scsi.spec.SenseKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** PERSISTENT RESERVE IN/OUT sequences (SPC-4 §5.13, §6.15, §6.16), byte level. */
class PersistentReservationTest {
    static final long K1 = 0x1111_2222_3333_4444L;
    static final long K2 = 0x5555_6666_7777_8888L;
    static final long K3 = 0x0A0B_0C0D_0E0F_0102L;

    @Test
    void registerReserveReleaseUnregister() {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            assertThat(a.generation()).isZero();
            assertThat(a.register(0, K1).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(a.keys()).containsExactly(K1);
            assertThat(a.generation()).isEqualTo(1);
            assertThat(a.reserve(K1, 3).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(a.generation()).as("RESERVE does not bump PRgeneration").isEqualTo(1);
            assertThat(a.reservation()).containsExactly(K1, 3);
            assertThat(a.reserve(K1, 3).status()).as("the holder re-reserving the same type").isEqualTo(ScsiStatus.GOOD);
            assertThat(a.reserve(K1, 1).status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(a.release(K1, 3).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(a.reservation()).isNull();
            assertThat(a.register(K1, 0).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(a.keys()).isEmpty();
            assertThat(a.generation()).isEqualTo(2);
            assertThat(a.drainUnitAttentions()).isEmpty();
        }
    }

    @Test
    void readReservationBytes() {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            a.register(0, K1);
            a.reserve(K1, 5);
            byte[] d = a.prin(1).data();
            assertThat(d).hasSize(24);
            assertThat(BigEndian.u32(d, 0)).isEqualTo(1);
            assertThat(BigEndian.u32(d, 4)).isEqualTo(16);
            assertThat(BigEndian.s64(d, 8)).isEqualTo(K1);
            assertThat(d[21]).isEqualTo((byte) 0x05); // scope LU (0), type 5
            // allocation length 12: truncated, ADDITIONAL LENGTH still the full 16
            TestFabric.Result t = a.in(Nexus.prinCdb(1, 12), 12);
            assertThat(t.data()).hasSize(12);
            assertThat(BigEndian.u32(t.data(), 4)).isEqualTo(16);
        }
    }

    @Test
    void registerKeyRules() {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            assertThat(a.register(K2, K1).status()).as("unregistered nexus with a non-zero key")
                    .isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(a.register(0, 0).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(a.generation()).as("registering key 0 changes nothing").isZero();
            a.register(0, K1);
            assertThat(a.register(K2, K3).status()).as("wrong key").isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(a.register(K1, K2).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(a.keys()).containsExactly(K2);
            assertThat(a.registerIgnore(K3).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(a.keys()).containsExactly(K3);
            assertThat(a.generation()).isEqualTo(3);
        }
    }

    /**
     * libiscsi ProutReserve.Ownership*: the holder unregisters. WE/EA: the reservation goes and nobody gets a
     * unit attention (tgt wrongly raises 2Ah/04h); RO: released, the other registrant gets RESERVATIONS RELEASED;
     * AR: the reservation stays with the remaining registrant.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 3, 5, 6, 7, 8})
    void holderUnregistering(int type) {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            Nexus b = Nexus.open(h, "iqn.2026-12.io.hostwide:second");
            a.registerIgnore(K1);
            b.registerIgnore(K2);
            assertThat(a.reserve(K1, type).status()).isEqualTo(ScsiStatus.GOOD);
            boolean allRegistrants = type >= 7;
            assertThat(a.reservation()).containsExactly(allRegistrants ? 0 : K1, type);
            assertThat(a.register(K1, 0).status()).isEqualTo(ScsiStatus.GOOD);
            if (allRegistrants) {
                assertThat(a.reservation()).containsExactly(0L, (long) type);
                assertThat(b.release(K2, type).status()).isEqualTo(ScsiStatus.GOOD);
                assertThat(b.drainUnitAttentions()).isEmpty();
            } else {
                assertThat(a.reservation()).isNull();
                assertThat(b.drainUnitAttentions()).isEqualTo(type >= 5
                        ? java.util.List.of(Asc.RESERVATIONS_RELEASED) : java.util.List.of());
            }
            assertThat(a.drainUnitAttentions()).isEmpty();
            assertThat(b.register(K2, 0).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(a.keys()).isEmpty();
        }
    }

    @Test
    void releaseRulesAndUnitAttentions() {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            Nexus b = Nexus.open(h, "iqn.2026-12.io.hostwide:second");
            Nexus c = Nexus.open(h, "iqn.2026-12.io.hostwide:third");
            a.registerIgnore(K1);
            b.registerIgnore(K2);
            assertThat(a.release(K1, 3).status()).as("nothing reserved").isEqualTo(ScsiStatus.GOOD);
            a.reserve(K1, 6);
            assertThat(b.release(K2, 6).status()).as("not the holder: no effect").isEqualTo(ScsiStatus.GOOD);
            assertThat(a.reservation()).containsExactly(K1, 6);
            assertThat(c.release(0, 6).status()).as("unregistered").isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            TestFabric.Result bad = a.release(K1, 5);
            assertThat(bad.senseKey()).isEqualTo(SenseKey.ILLEGAL_REQUEST);
            assertThat(bad.ascAscq()).isEqualTo(0x2604); // INVALID RELEASE OF PERSISTENT RESERVATION
            assertThat(a.reservation()).containsExactly(K1, 6);
            assertThat(a.release(K1, 6).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.drainUnitAttentions()).containsExactly(Asc.RESERVATIONS_RELEASED);
            assertThat(c.drainUnitAttentions()).as("not registered").isEmpty();
            assertThat(a.drainUnitAttentions()).isEmpty();
        }
    }

    @Test
    void clearRemovesEverythingAndTellsTheOthers() {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            Nexus b = Nexus.open(h, "iqn.2026-12.io.hostwide:second");
            a.registerIgnore(K1);
            b.registerIgnore(K2);
            a.reserve(K1, 1);
            assertThat(b.clear(K1).status()).as("wrong key").isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(b.clear(K2).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.keys()).isEmpty();
            assertThat(b.reservation()).isNull();
            assertThat(b.generation()).isEqualTo(3);
            assertThat(a.drainUnitAttentions()).containsExactly(Asc.RESERVATIONS_PREEMPTED);
            assertThat(b.drainUnitAttentions()).isEmpty();
        }
    }

    // libiscsi ProutPreempt.RemoveRegistration
    @Test
    void preemptRemovesARegistration() {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            Nexus b = Nexus.open(h, "iqn.2026-12.io.hostwide:second");
            a.registerIgnore(K1);
            b.registerIgnore(K2);
            int gen = a.generation();
            assertThat(b.preempt(K2, K3, 3).status()).as("no registration with that key")
                    .isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(b.preempt(K2, K1, 3).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(a.drainUnitAttentions()).containsExactly(Asc.REGISTRATIONS_PREEMPTED);
            assertThat(b.drainUnitAttentions()).isEmpty();
            assertThat(b.keys()).containsExactly(K2);
            assertThat(b.generation()).isEqualTo(gen + 1);
            assertThat(b.reservation()).as("no reservation was involved").isNull();
            TestFabric.Result zero = b.preempt(K2, 0, 3);
            assertThat(zero.ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_PARAMETER_LIST);
        }
    }

    /** SPC-4 §5.13.11.4.3: preempting the holder moves the reservation; a type change releases it for the rest. */
    @Test
    void preemptTheHolder() {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            Nexus b = Nexus.open(h, "iqn.2026-12.io.hostwide:second");
            Nexus c = Nexus.open(h, "iqn.2026-12.io.hostwide:third");
            a.registerIgnore(K1);
            b.registerIgnore(K2);
            c.registerIgnore(K3);
            a.reserve(K1, 3);
            assertThat(b.preempt(K2, K1, 1).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.reservation()).containsExactly(K2, 1);
            assertThat(b.keys()).containsExactly(K2, K3);
            assertThat(a.drainUnitAttentions()).containsExactly(Asc.REGISTRATIONS_PREEMPTED);
            assertThat(c.drainUnitAttentions()).containsExactly(Asc.RESERVATIONS_RELEASED);
            assertThat(b.drainUnitAttentions()).isEmpty();
            // a is no longer registered: its writes conflict under WE, reads pass
            assertThat(a.out(Harness.write10(1, 1), new byte[512]).status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(a.in(Harness.read10(1, 1), 512).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    @Test
    void preemptAllRegistrantsWithKeyZero() {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            Nexus b = Nexus.open(h, "iqn.2026-12.io.hostwide:second");
            a.registerIgnore(K1);
            b.registerIgnore(K2);
            a.reserve(K1, 8);
            assertThat(b.preempt(K2, 0, 3).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.keys()).containsExactly(K2);
            assertThat(b.reservation()).containsExactly(K2, 3);
            assertThat(a.drainUnitAttentions()).containsExactly(Asc.REGISTRATIONS_PREEMPTED);
        }
    }

    @Test
    void registerAndMove() {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            Nexus b = Nexus.open(h, "iqn.2026-12.io.hostwide:second");
            a.registerIgnore(K1);
            a.reserve(K1, 1);
            String dest = b.session.initiatorPortName();
            byte[] name = dest.getBytes(StandardCharsets.UTF_8);
            int tidLen = 4 + Math.max(20, (name.length + 1 + 3) & ~3);
            byte[] p = new byte[24 + tidLen];
            BigEndian.put64(p, 0, K1);
            BigEndian.put64(p, 8, K2);
            p[17] = 0x02; // UNREG
            BigEndian.put16(p, 18, h.port.relativePortId());
            BigEndian.put32(p, 20, tidLen);
            p[24] = 0x45;
            BigEndian.put16(p, 26, tidLen - 4);
            System.arraycopy(name, 0, p, 28, name.length);
            TestFabric.Result r = a.out(Nexus.proutCdb(7, 1, p.length), p);
            assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.reservation()).containsExactly(K2, 1);
            assertThat(b.keys()).containsExactly(K2);
            assertThat(b.out(Harness.write10(0, 1), new byte[512]).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(a.out(Harness.write10(0, 1), new byte[512]).status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            // the new holder moving with a wrong key, or a non-holder moving: conflict
            BigEndian.put64(p, 0, K3);
            assertThat(b.out(Nexus.proutCdb(7, 1, p.length), p).status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
        }
    }

    @Test
    void readFullStatusBytes() {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            Nexus b = Nexus.open(h, "iqn.2026-12.io.hostwide:second");
            a.registerIgnore(K1);
            b.prout(6, 0, 0, K2, 0x04); // ALL_TG_PT
            a.reserve(K1, 1);
            byte[] d = Nexus.ok(a.prin(3)).data();
            assertThat(BigEndian.u32(d, 0)).isEqualTo(2);
            int p = 8;
            assertThat(BigEndian.s64(d, p)).isEqualTo(K1);
            assertThat(d[p + 12]).isEqualTo((byte) 0x01); // R_HOLDER
            assertThat(d[p + 13]).isEqualTo((byte) 0x01); // scope 0, type WE
            assertThat(BigEndian.u16(d, p + 18)).isEqualTo(h.port.relativePortId());
            int tid = (int) BigEndian.u32(d, p + 20);
            assertThat(d[p + 24]).isEqualTo((byte) 0x45); // format 01b, iSCSI
            assertThat(BigEndian.u16(d, p + 26) % 4).isZero();
            String name = new String(d, p + 28, a.session.initiatorPortName().length(), StandardCharsets.UTF_8);
            assertThat(name).isEqualTo(a.session.initiatorPortName());
            p += 24 + tid;
            assertThat(BigEndian.s64(d, p)).isEqualTo(K2);
            assertThat(d[p + 12]).isEqualTo((byte) 0x02); // ALL_TG_PT, not holder
            assertThat(d[p + 13]).isZero();
            assertThat(BigEndian.u32(d, 4)).isEqualTo(d.length - 8);
        }
    }

    @Test
    void reportCapabilitiesBytes() {
        try (Harness h = new Harness()) {
            byte[] d = Nexus.ok(Nexus.first(h).prin(2)).data();
            assertThat(d).containsExactly(0, 8, 0x15, 0x90, 0xEA, 0x01, 0, 0);
        }
    }

    // libiscsi PrinServiceactionRange.Range: SA 0..3 work, 4..1Fh are INVALID FIELD IN CDB
    @Test
    void prinServiceActionRange() {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            for (int sa = 0; sa < 0x20; sa++) {
                TestFabric.Result r = a.prin(sa);
                if (sa < 4) {
                    assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
                } else {
                    assertThat(r.ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
                    assertThat(r.fieldPointer()).as("points at the service action")
                            .isEqualTo(SenseData.fieldPointer(true, 1, 4));
                }
            }
        }
    }

    @Test
    void badParameterListsChangeNothing() {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            a.registerIgnore(K1);
            TestFabric.Result shortList = a.out(Nexus.proutCdb(0, 0, 20), new byte[20]);
            assertThat(shortList.ascAscq()).isEqualTo(Asc.PARAMETER_LIST_LENGTH_ERROR);
            byte[] spec = new byte[28];
            System.arraycopy(Nexus.basic(K1, K2, 0x08), 0, spec, 0, 24);
            TestFabric.Result specIpt = a.out(Nexus.proutCdb(0, 0, 28), spec);
            assertThat(specIpt.ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_PARAMETER_LIST);
            TestFabric.Result allTgPtReserve = a.prout(1, 1, K1, 0, 0x04);
            assertThat(allTgPtReserve.ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_PARAMETER_LIST);
            TestFabric.Result badType = a.reserve(K1, 2);
            assertThat(badType.ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            TestFabric.Result badScope = a.prout(1, 0x11, K1, 0, 0);
            assertThat(badScope.ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            assertThat(a.keys()).containsExactly(K1);
            assertThat(a.reservation()).isNull();
            assertThat(a.generation()).isEqualTo(1);
        }
    }
}
