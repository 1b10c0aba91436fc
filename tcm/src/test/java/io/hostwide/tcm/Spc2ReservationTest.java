package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.tmf.TmfFunction;
import io.hostwide.tcm.tmf.TmfResponse;
import io.hostwide.tcm.tmf.TmfResult;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static io.hostwide.tcm.Harness.cdb;
import static org.assertj.core.api.Assertions.assertThat;

/** SPC-2 RESERVE/RELEASE and their interplay with persistent reservations (SPC-4 §5.13.3, CRH = 1). */
class Spc2ReservationTest {
    static final byte[] RESERVE6 = cdb(0x16, 0, 0, 0, 0, 0);
    static final byte[] RELEASE6 = cdb(0x17, 0, 0, 0, 0, 0);
    static final byte[] RESERVE10 = cdb(0x56, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    static final byte[] MODE_SENSE6 = cdb(0x1A, 0, 0x3F, 0, 255, 0);
    /** SCSI BUS RESET OCCURRED: what TARGET WARM RESET, a hard reset, establishes. */
    static final int SCSI_BUS_RESET_OCCURRED = 0x2902;

    // libiscsi Reserve6.2Initiators
    @Test
    void twoInitiators() {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            Nexus b = Nexus.open(h, "iqn.2026-12.io.hostwide:second");
            assertThat(a.none(RESERVE6).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(a.none(RESERVE6).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.none(RESERVE6).status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(b.none(RELEASE6).status()).as("a non-holder's RELEASE is a no-op").isEqualTo(ScsiStatus.GOOD);
            assertThat(a.in(MODE_SENSE6, 255).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.in(MODE_SENSE6, 255).status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(b.in(cdb(0x12, 0, 0, 0, 36, 0), 36).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.prin(0).status()).as("PR IN conflicts with an SPC-2 reservation too")
                    .isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(b.none(RESERVE10).status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(a.none(RELEASE6).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.none(RESERVE6).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.none(RELEASE6).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(b.drainUnitAttentions()).isEmpty();
        }
    }

    // libiscsi Reserve6.Logout / ITNexusLoss: the nexus going releases its reservation
    @Test
    void nexusLossReleases() {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.open(h, "iqn.2026-12.io.hostwide:first");
            Nexus b = Nexus.open(h, "iqn.2026-12.io.hostwide:second");
            a.none(RESERVE6);
            assertThat(b.none(RESERVE6).status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            a.session.close();
            assertThat(b.none(RESERVE6).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    // libiscsi Reserve6.LunReset / TargetWarmReset / TargetColdReset
    @Test
    void resetsRelease() {
        for (TmfFunction f : new TmfFunction[] {TmfFunction.LOGICAL_UNIT_RESET, TmfFunction.TARGET_WARM_RESET,
                TmfFunction.TARGET_COLD_RESET, TmfFunction.I_T_NEXUS_RESET}) {
            try (Harness h = new Harness()) {
                Nexus a = Nexus.first(h);
                Nexus b = Nexus.open(h, "iqn.2026-12.io.hostwide:second");
                a.none(RESERVE6);
                CompletableFuture<TmfResult> done = new CompletableFuture<>();
                h.core.taskManagement().request(a.session, f, 0, 0, done::complete);
                assertThat(done.join().response()).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
                b.drainUnitAttentions();
                assertThat(b.none(RESERVE6).status()).as(f.name()).isEqualTo(ScsiStatus.GOOD);
            }
        }
    }

    /**
     * libiscsi Reserve6.TargetWarmReset then Reserve6.LUNReset, as one suite runs them (one login per initiator
     * for the whole suite), guarding which unit attentions each I_T nexus sees. SAM-5 §5.14, §6.3: a reset
     * establishes its condition for every I_T nexus that exists when it happens, the requester's included, and each
     * nexus keeps it until its own next command reports it, however much later, whatever task management happens
     * meanwhile. A nexus formed after the reset never sees it; it sees only its initiator port's power-on
     * condition, once (SAM-5 §6.3.1). So the first initiator's RESERVE(6) in LUNReset reports the warm reset of the
     * test before, and the second initiator's new login there sees no reset at all.
     */
    @Test
    void resetConditionsStayWithTheNexusesThatExistedAndSkipLaterOnes() {
        try (Harness h = new Harness(new DeviceAttributes(), new RamBackstore(1 << 20, 512), true)) {
            Nexus first = Nexus.first(h);
            Nexus second = Nexus.open(h, "iqn.2026-12.io.hostwide:second");
            assertThat(first.drainUnitAttentions()).containsExactly(Asc.POWER_ON_RESET_OR_BUS_DEVICE_RESET_OCCURRED);
            assertThat(second.drainUnitAttentions()).containsExactly(Asc.POWER_ON_RESET_OR_BUS_DEVICE_RESET_OCCURRED);

            // TargetWarmReset
            assertThat(first.none(RESERVE6).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(tmf(h, first, TmfFunction.TARGET_WARM_RESET)).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            assertThat(second.none(RESERVE6).ascAscq()).isEqualTo(SCSI_BUS_RESET_OCCURRED);
            assertThat(second.none(RESERVE6).status()).as("the reset released the reservation").isEqualTo(ScsiStatus.GOOD);
            assertThat(second.none(RELEASE6).status()).isEqualTo(ScsiStatus.GOOD);

            // LUNReset: the first initiator's nexus has not sent a command since its own warm reset
            assertThat(first.none(RESERVE6).ascAscq()).isEqualTo(SCSI_BUS_RESET_OCCURRED);
            assertThat(first.none(RESERVE6).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(tmf(h, first, TmfFunction.LOGICAL_UNIT_RESET)).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            String name = "iqn.2026-12.io.hostwide:second";
            Nexus secondAgain = new Nexus(h, h.core.openSession(h.port, h.fabric, name, name + ",i,0x000000000002"));
            assertThat(secondAgain.drainUnitAttentions()).as("a new initiator port: its power on, no reset")
                    .containsExactly(Asc.POWER_ON_RESET_OR_BUS_DEVICE_RESET_OCCURRED);
            assertThat(secondAgain.none(RESERVE6).status()).as("the LU reset released it").isEqualTo(ScsiStatus.GOOD);
            assertThat(secondAgain.none(RELEASE6).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(second.drainUnitAttentions()).as("the old nexus existed at the LU reset")
                    .containsExactly(Asc.BUS_DEVICE_RESET_FUNCTION_OCCURRED);
            assertThat(first.drainUnitAttentions()).containsExactly(Asc.BUS_DEVICE_RESET_FUNCTION_OCCURRED);
        }
    }

    private static TmfResponse tmf(Harness h, Nexus n, TmfFunction f) {
        CompletableFuture<TmfResult> done = new CompletableFuture<>();
        h.core.taskManagement().request(n.session, f, LunAddress.encode(0), 0, done::complete);
        return done.join().response();
    }

    @Test
    void compatibleReservationHandling() {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            Nexus b = Nexus.open(h, "iqn.2026-12.io.hostwide:second");
            a.registerIgnore(1);
            assertThat(a.none(RESERVE6).status()).as("registrations exist, no holder")
                    .isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            a.reserve(1, 1);
            assertThat(a.none(RESERVE6).status()).as("the PR holder: GOOD, no effect").isEqualTo(ScsiStatus.GOOD);
            assertThat(a.none(RELEASE6).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(a.reservation()).containsExactly(1L, 1L);
            assertThat(b.none(RESERVE6).status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(b.none(RELEASE6).status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(b.in(Harness.read10(0, 1), 512).status()).as("WE: reads pass").isEqualTo(ScsiStatus.GOOD);
        }
    }

    @Test
    void reservedBitsAreRejected() {
        try (Harness h = new Harness()) {
            TestFabric.Result r = Nexus.first(h).none(cdb(0x16, 0x01, 0, 0, 0, 0)); // EXTENT
            assertThat(r.ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
            TestFabric.Result third = Nexus.first(h).none(cdb(0x56, 0x10, 0, 0, 0, 0, 0, 0, 0, 0)); // 3RDPTY
            assertThat(third.ascAscq()).isEqualTo(Asc.INVALID_FIELD_IN_CDB);
        }
    }
}
