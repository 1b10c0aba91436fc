package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.tcm.lu.InMemoryReservationStore;
import io.hostwide.tcm.tmf.TmfFunction;
import io.hostwide.tcm.tmf.TmfResponse;
import io.hostwide.tcm.tmf.TmfResult;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Resets across gateways (issue 16; libiscsi MultipathIO.Reset, Reserve6.LUNReset with its two initiators on two
 * gateways): a LOGICAL UNIT RESET or a target reset taken on gateway A is the LU's (SAM-5 §6.3), so by the time A
 * answers it, gateway B's I_T nexuses of the LU have its unit attention too and the SPC-2 reservation it released
 * is released for B as well.
 */
class SharedResetTest {
    private static final int RESERVE6 = 0x16;

    private static TmfResponse tmf(Gateway g, Gateway.Path p, TmfFunction f) {
        CompletableFuture<TmfResult> done = new CompletableFuture<>();
        g.core.taskManagement().request(p.session(), f, LunAddress.encode(0), 0, done::complete);
        return done.join().response();
    }

    @Test
    void aLogicalUnitResetOnOneGatewayRaisesItsUnitAttentionOnTheOthersNexuses() throws Exception {
        InMemoryReservationStore cluster = new InMemoryReservationStore();
        try (Gateway a = new Gateway(cluster, "gw-a", 1); Gateway b = new Gateway(cluster, "gw-b", 2)) {
            Gateway.Path pa = a.open("iqn.2026-12.io.hostwide:host1");
            Gateway.Path pb = b.open("iqn.2026-12.io.hostwide:host2");
            Gateway.Path pb2 = b.open("iqn.2026-12.io.hostwide:host1"); // the same host's other path
            pa.drainUnitAttentions();
            pb.drainUnitAttentions();
            pb2.drainUnitAttentions();

            assertThat(tmf(a, pa, TmfFunction.LOGICAL_UNIT_RESET)).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            assertThat(pa.drainUnitAttentions()).containsExactly(Asc.BUS_DEVICE_RESET_FUNCTION_OCCURRED);
            assertThat(pb.drainUnitAttentions()).as("the other gateway's nexuses, told before A answered")
                    .containsExactly(Asc.BUS_DEVICE_RESET_FUNCTION_OCCURRED);
            assertThat(pb2.drainUnitAttentions()).containsExactly(Asc.BUS_DEVICE_RESET_FUNCTION_OCCURRED);

            assertThat(tmf(b, pb, TmfFunction.LOGICAL_UNIT_RESET)).as("and the other way")
                    .isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            assertThat(pa.drainUnitAttentions()).containsExactly(Asc.BUS_DEVICE_RESET_FUNCTION_OCCURRED);
        }
    }

    @Test
    void aTargetWarmResetOnOneGatewayReachesTheOthersNexuses() throws Exception {
        InMemoryReservationStore cluster = new InMemoryReservationStore();
        try (Gateway a = new Gateway(cluster, "gw-a", 1); Gateway b = new Gateway(cluster, "gw-b", 2)) {
            Gateway.Path pa = a.open("iqn.2026-12.io.hostwide:host1");
            Gateway.Path pb = b.open("iqn.2026-12.io.hostwide:host2");
            pa.drainUnitAttentions();
            pb.drainUnitAttentions();
            assertThat(tmf(a, pa, TmfFunction.TARGET_WARM_RESET)).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            assertThat(pb.drainUnitAttentions()).containsExactly(0x2902); // SCSI BUS RESET OCCURRED
        }
    }

    @Test
    void theSpc2ReservationAResetReleasesIsReleasedOnEveryGateway() throws Exception {
        InMemoryReservationStore cluster = new InMemoryReservationStore();
        try (Gateway a = new Gateway(cluster, "gw-a", 1); Gateway b = new Gateway(cluster, "gw-b", 2)) {
            Gateway.Path pa = a.open("iqn.2026-12.io.hostwide:host1");
            Gateway.Path pb = b.open("iqn.2026-12.io.hostwide:host2");
            pa.drainUnitAttentions();
            pb.drainUnitAttentions();
            assertThat(pb.none(Harness.cdb(RESERVE6, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(pa.write().status()).as("B's RESERVE(6) holds on A")
                    .isEqualTo(ScsiStatus.RESERVATION_CONFLICT);

            assertThat(tmf(a, pa, TmfFunction.LOGICAL_UNIT_RESET)).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            pa.drainUnitAttentions();
            pb.drainUnitAttentions();
            assertThat(pa.write().status()).as("released by the reset taken on A").isEqualTo(ScsiStatus.GOOD);
            assertThat(pa.none(Harness.cdb(RESERVE6, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(pb.write().status()).as("and B sees A's new one")
                    .isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
        }
    }
}
