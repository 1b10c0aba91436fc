package io.hostwide.tcm.pr;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.lu.ItNexus;
import io.hostwide.tcm.lu.PersistentReservations;
import io.hostwide.tcm.lu.PrChange;
import io.hostwide.tcm.lu.PrNotice;
import io.hostwide.tcm.lu.PrState;
import io.hostwide.tcm.lu.PrType;
import io.hostwide.tcm.lu.Registration;
import io.hostwide.tcm.spi.SenseReason;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * PREEMPT and PREEMPT AND ABORT (SPC-4 §5.13.11.4). The SERVICE ACTION RESERVATION KEY names the registrations to
 * remove; what else happens depends on the reservation:
 * <ul>
 *   <li>none: remove the registrations with that key (none → RESERVATION CONFLICT; key 0 → INVALID FIELD IN
 *       PARAMETER LIST);</li>
 *   <li>all registrants: key 0 removes every other registration and makes the sender the holder of a new
 *       reservation of the CDB's type; another key just removes registrations;</li>
 *   <li>otherwise, key = the holder's: remove those registrations, release, reserve for the sender with the CDB's
 *       type — and if type or scope changed, RESERVATIONS RELEASED to the registrants that stay;
 *       another key: remove registrations (none → RESERVATION CONFLICT).</li>
 * </ul>
 * Every removed nexus (but the sender) gets REGISTRATIONS PREEMPTED. PREEMPT AND ABORT then aborts the preempted
 * nexuses' commands on this LU through the task manager and completes only after they are gone (on other
 * gateways, before their watch acknowledges the notify).
 */
final class Preempt {
    private Preempt() {}

    static int execute(PersistentReserveOut.Request r, boolean abort) {
        Command cmd = r.cmd();
        PersistentReservations.Result res = PersistentReserveOut.change(cmd, s -> decide(s, r, abort));
        if (res.status() != PersistentReservations.Status.COMMITTED || !abort || res.toAbort().isEmpty()) {
            return PersistentReserveOut.answer(cmd, res);
        }
        cmd.abortTasksOf(new HashSet<>(res.toAbort()), cmd::complete);
        return CommandDescriptor.ASYNC;
    }

    private static PrChange decide(PrState s, PersistentReserveOut.Request r, boolean abort) {
        Command cmd = r.cmd();
        ItNexus me = r.session();
        Registration mine = s.registrationOf(me);
        if (mine == null || mine.key() != r.key()) {
            return PersistentReserveOut.fail(cmd, SenseReason.RESERVATION_CONFLICT);
        }
        boolean allReg = s.reserved() && PrType.allRegistrants(s.type());
        if (r.saKey() == 0 && !allReg) {
            return PrChange.none(() -> cmd.failParameterField(8, 7));
        }
        List<Registration> kept = new ArrayList<>();
        List<Registration> removed = new ArrayList<>();
        for (Registration x : s.registrations()) {
            boolean drop = !x.equals(mine) && (allReg && r.saKey() == 0 || x.key() == r.saKey());
            (drop ? removed : kept).add(x);
        }
        int type = s.type();
        Registration holder = s.holder();
        boolean typeChanged = false;
        if (allReg && r.saKey() == 0 || s.reserved() && !allReg && s.holder().key() == r.saKey()) {
            typeChanged = type != r.type();
            type = r.type();
            holder = PrType.allRegistrants(type) ? null : mine;
        } else if (removed.isEmpty()) {
            return PersistentReserveOut.fail(cmd, SenseReason.RESERVATION_CONFLICT);
        }
        if (holder != null && !kept.contains(holder)) {
            holder = null; // cannot happen for a preempting holder; keeps the state consistent
            type = 0;
        }
        PrState next = new PrState(s.generation() + 1, kept, type, holder, s.spc2Holder(), s.aptpl());
        // every removed nexus but the sender hears REGISTRATIONS PREEMPTED (and, with abort, loses its tasks,
        // on whichever gateway it is); a changed type tells the registrants that stay RESERVATIONS RELEASED
        PrNotice preempted = PrNotice.of(Asc.REGISTRATIONS_PREEMPTED, removed, List.of(), me, abort);
        if (typeChanged) {
            return PrChange.to(next, PersistentReserveOut.GOOD, preempted,
                    PrNotice.of(Asc.RESERVATIONS_RELEASED, kept, removed, me, false));
        }
        return PrChange.to(next, PersistentReserveOut.GOOD, preempted);
    }
}
