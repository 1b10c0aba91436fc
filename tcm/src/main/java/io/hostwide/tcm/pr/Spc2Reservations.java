package io.hostwide.tcm.pr;

import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.lu.ItNexus;
import io.hostwide.tcm.lu.PersistentReservations;
import io.hostwide.tcm.lu.PrState;
import io.hostwide.tcm.spi.SenseReason;

/**
 * RESERVE(6)/(10) and RELEASE(6)/(10) (SPC-2 §7.21-7.24), logical-unit reservations of one I_T nexus, with the
 * SPC-4 §5.13.3 compatible reservation handling (CRH = 1) while persistent registrations exist:
 * RESERVE / RELEASE from the persistent reservation holder (any registrant of an all-registrants reservation)
 * complete GOOD with no effect; from anyone else they get RESERVATION CONFLICT. Without registrations:
 * RESERVE by another nexus than the holder conflicts, re-RESERVE by the holder is GOOD, RELEASE by a non-holder
 * is GOOD and changes nothing. Third-party and extent reservations are not supported (reserved bits).
 * Released by LU reset, target reset, I_T nexus reset and I_T nexus loss.
 */
public final class Spc2Reservations {
    private Spc2Reservations() {}

    public static int reserve(Command cmd) {
        PersistentReservations pr = cmd.device().reservations();
        ItNexus me = cmd.nexus();
        synchronized (pr) {
            PrState s = pr.state();
            if (!s.registrations().isEmpty()) {
                return s.isHolder(me) ? CommandDescriptor.DONE : cmd.fail(SenseReason.RESERVATION_CONFLICT);
            }
            ItNexus holder = s.liveSpc2Holder();
            if (holder != null && holder != me) {
                return cmd.fail(SenseReason.RESERVATION_CONFLICT);
            }
            pr.publish(new PrState(s.generation(), s.registrations(), s.type(), s.holder(), me, s.aptpl()));
            return CommandDescriptor.DONE;
        }
    }

    public static int release(Command cmd) {
        PersistentReservations pr = cmd.device().reservations();
        ItNexus me = cmd.nexus();
        synchronized (pr) {
            PrState s = pr.state();
            if (!s.registrations().isEmpty()) {
                return s.isHolder(me) ? CommandDescriptor.DONE : cmd.fail(SenseReason.RESERVATION_CONFLICT);
            }
            ItNexus holder = s.liveSpc2Holder();
            if (holder == me || (holder == null && s.spc2Holder() != null)) {
                pr.publish(new PrState(s.generation(), s.registrations(), s.type(), s.holder(), null, s.aptpl()));
            }
            return CommandDescriptor.DONE;
        }
    }
}
