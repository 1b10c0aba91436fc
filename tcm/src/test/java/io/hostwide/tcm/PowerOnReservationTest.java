package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.tmf.TmfFunction;
import io.hostwide.tcm.tmf.TmfResponse;
import io.hostwide.tcm.tmf.TmfResult;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * TARGET COLD RESET is a power on (SAM-5 §6.3.2): persistent reservations and registrations made without APTPL are
 * lost, those made with APTPL are kept (SPC-4 §5.14.5), PRgeneration restarts at 0 either way (SPC-4 §6.16.2);
 * TARGET WARM RESET and LOGICAL UNIT RESET keep them all (SPC-4 §5.14.1).
 */
class PowerOnReservationTest {
    static final int WRITE_EXCLUSIVE = 1;
    static final int APTPL = 0x01;

    private static TmfResult tmf(Harness h, Session s, TmfFunction f) throws Exception {
        CompletableFuture<TmfResult> r = new CompletableFuture<>();
        h.core.taskManagement().request(s, f, 0, 0, r::complete);
        return r.get(10, TimeUnit.SECONDS);
    }

    @Test
    void coldResetLosesRegistrationsMadeWithoutAptpl() throws Exception {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            Nexus b = Nexus.open(h, "iqn.2026-12.io.hostwide:b");
            Nexus.ok(a.registerIgnore(0xA));
            Nexus.ok(b.registerIgnore(0xB));
            Nexus.ok(a.reserve(0xA, WRITE_EXCLUSIVE));
            assertThat(b.out(Harness.write10(0, 1), new byte[512]).status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);

            assertThat(tmf(h, a.session, TmfFunction.TARGET_WARM_RESET).response()).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            a.drainUnitAttentions();
            b.drainUnitAttentions();
            assertThat(a.keys()).containsExactly(0xA, 0xB); // a warm reset is no power on
            assertThat(a.reservation()).containsExactly(0xA, WRITE_EXCLUSIVE);

            assertThat(tmf(h, a.session, TmfFunction.TARGET_COLD_RESET).response()).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            assertThat(b.drainUnitAttentions()).containsExactly(Asc.POWER_ON_OCCURRED);
            a.drainUnitAttentions();
            assertThat(a.keys()).isEmpty();
            assertThat(a.reservation()).isNull();
            assertThat(a.generation()).isZero();
            assertThat(b.out(Harness.write10(0, 1), new byte[512]).status()).isEqualTo(ScsiStatus.GOOD);
            Nexus.ok(a.registerIgnore(0xC)); // a fresh start: registering works again
            assertThat(a.keys()).containsExactly(0xC);
        }
    }

    @Test
    void coldResetKeepsRegistrationsMadeWithAptpl() throws Exception {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            Nexus b = Nexus.open(h, "iqn.2026-12.io.hostwide:b");
            Nexus.ok(b.registerIgnore(0xB));
            Nexus.ok(a.prout(6, 0, 0, 0xA, APTPL)); // REGISTER AND IGNORE EXISTING KEY with APTPL: APTPL is on
            Nexus.ok(a.reserve(0xA, WRITE_EXCLUSIVE));
            assertThat(a.generation()).isEqualTo(2);

            tmf(h, b.session, TmfFunction.TARGET_COLD_RESET);
            a.drainUnitAttentions();
            b.drainUnitAttentions();
            assertThat(a.keys()).containsExactly(0xB, 0xA);
            assertThat(a.reservation()).containsExactly(0xA, WRITE_EXCLUSIVE);
            assertThat(a.generation()).isZero();
            assertThat(b.out(Harness.write10(0, 1), new byte[512]).status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            byte[] caps = Nexus.ok(a.prin(2)).data();
            assertThat(caps[3] & 0x01).as("PTPL_A").isEqualTo(1);

            Nexus.ok(a.register(0xA, 0xA)); // APTPL = 0 in the last parameter list: the next power on loses all
            tmf(h, b.session, TmfFunction.TARGET_COLD_RESET);
            a.drainUnitAttentions();
            assertThat(a.keys()).isEmpty();
        }
    }

    @Test
    void coldResetReleasesAnSpc2Reservation() throws Exception {
        try (Harness h = new Harness()) {
            Nexus a = Nexus.first(h);
            Nexus b = Nexus.open(h, "iqn.2026-12.io.hostwide:b");
            Nexus.ok(a.none(Harness.cdb(0x16, 0, 0, 0, 0, 0))); // RESERVE(6)
            assertThat(b.none(Harness.cdb(0, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            tmf(h, a.session, TmfFunction.TARGET_COLD_RESET);
            b.drainUnitAttentions();
            assertThat(b.none(Harness.cdb(0, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }
}
