package io.hostwide.tcm.pr;

import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.lu.ItNexus;
import io.hostwide.tcm.lu.PrChange;
import io.hostwide.tcm.lu.Spc2Holder;
import io.hostwide.tcm.spi.SenseReason;

/**
 * RESERVE(6)/(10) and RELEASE(6)/(10) (SPC-2 §7.21-7.24), logical-unit reservations of one I_T nexus, with the
 * SPC-4 §5.13.3 compatible reservation handling (CRH = 1) while persistent registrations exist:
 * RESERVE / RELEASE from the persistent reservation holder (any registrant of an all-registrants reservation)
 * complete GOOD with no effect; from anyone else they get RESERVATION CONFLICT. Without registrations:
 * RESERVE by another nexus than the holder conflicts, re-RESERVE by the holder is GOOD, RELEASE by a non-holder
 * is GOOD and changes nothing. Third-party and extent reservations are not supported (reserved bits).
 * Released by LU reset, target reset, I_T nexus reset and I_T nexus loss. The holder is kept by name
 * ({@link Spc2Holder}), so gateways sharing the state see it.
 */
public final class Spc2Reservations {
    private Spc2Reservations() {}

    public static int reserve(Command cmd) {
        ItNexus me = cmd.nexus();
        return PersistentReserveOut.run(cmd, s -> {
            if (!s.registrations().isEmpty()) {
                return s.isHolder(me) ? PrChange.none(PersistentReserveOut.GOOD)
                        : PersistentReserveOut.fail(cmd, SenseReason.RESERVATION_CONFLICT);
            }
            if (s.spc2Holder() == null) {
                return PrChange.to(s.withSpc2Holder(Spc2Holder.of(me)), PersistentReserveOut.GOOD);
            }
            return s.isSpc2Holder(me) ? PrChange.none(PersistentReserveOut.GOOD)
                    : PersistentReserveOut.fail(cmd, SenseReason.RESERVATION_CONFLICT);
        });
    }

    public static int release(Command cmd) {
        ItNexus me = cmd.nexus();
        return PersistentReserveOut.run(cmd, s -> {
            if (!s.registrations().isEmpty()) {
                return s.isHolder(me) ? PrChange.none(PersistentReserveOut.GOOD)
                        : PersistentReserveOut.fail(cmd, SenseReason.RESERVATION_CONFLICT);
            }
            return s.isSpc2Holder(me) ? PrChange.to(s.withSpc2Holder(null), PersistentReserveOut.GOOD)
                    : PrChange.none(PersistentReserveOut.GOOD);
        });
    }
}
