package io.hostwide.tcm.pr;

import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.tcm.dispatch.Command;
import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.CommandGate;
import io.hostwide.tcm.dispatch.ReservationRule;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.ItNexus;
import io.hostwide.tcm.lu.PrState;
import io.hostwide.tcm.lu.Registration;
import io.hostwide.tcm.spi.SenseReason;

/**
 * The {@link io.hostwide.tcm.dispatch.GateSlot#RESERVATION} gate: RESERVATION CONFLICT per the command row's
 * {@link ReservationRule}. Fast path: one volatile read of the LU's {@link PrState}; with no reservation
 * (registrations alone never conflict) the command passes without a lock.
 *
 * <p>An SPC-2 reservation takes precedence (SPC-2 §5.5.1): another I_T nexus may only send INQUIRY, REPORT LUNS,
 * REQUEST SENSE and RELEASE (a no-op for it). Under a persistent reservation the holder passes; for anyone else
 * SPC-4 §5.13.1 Table 63 applies through the rule:
 * <pre>
 *                   WE      EA      WE-RO/AR          EA-RO/AR
 *  READ rule        allow   conflict allow            registrants
 *  WRITE rule       conflict conflict registrants     registrants
 * </pre>
 * ALWAYS_ALLOWED rows pass; SPECIAL rows (PR OUT, RESERVE/RELEASE) are decided by their handlers; PREVENT ALLOW
 * MEDIUM REMOVAL with PREVENT = 0 is allowed, otherwise a WRITE.
 */
public final class ReservationGate implements CommandGate {

    @Override
    public int enter(Command cmd) {
        Device dev = cmd.device();
        if (dev == null) {
            return PASS;
        }
        PrState s = dev.reservations().state();
        if (s.quiet()) {
            return PASS;
        }
        if (s.untrusted()) {
            return untrusted(cmd);
        }
        ItNexus me = cmd.nexus();
        if (s.spc2Holder() != null && !s.spc2Holder().matches(me) && !spc2Allowed(cmd)) {
            return conflict(cmd);
        }
        if (s.reserved() && !persistentAllowed(s, cmd, me)) {
            return conflict(cmd);
        }
        return PASS;
    }

    /**
     * A shared state this gateway cannot trust (store unreachable, watch broken): BUSY for every command the
     * check would judge (see {@link io.hostwide.tcm.lu.SharedReservations} for why BUSY); commands that never
     * conflict pass, and PR OUT / RESERVE / RELEASE go on to their handlers, which re-read the store.
     */
    private static int untrusted(Command cmd) {
        if (cmd.descriptor().reservation() == ReservationRule.ALWAYS_ALLOWED || special(cmd.opcode())) {
            return PASS;
        }
        cmd.fail(SenseReason.BUSY);
        return FAIL;
    }

    private static boolean special(int op) {
        return op == ScsiOpcode.PERSISTENT_RESERVE_OUT || op == ScsiOpcode.RESERVE_6 || op == ScsiOpcode.RESERVE_10
                || op == ScsiOpcode.RELEASE_6 || op == ScsiOpcode.RELEASE_10;
    }

    private static int conflict(Command cmd) {
        cmd.fail(SenseReason.RESERVATION_CONFLICT);
        return FAIL;
    }

    private static boolean spc2Allowed(Command cmd) {
        int op = cmd.opcode();
        return cmd.descriptor().has(CommandDescriptor.NO_LUN_OK) || op == ScsiOpcode.RELEASE_6
                || op == ScsiOpcode.RELEASE_10;
    }

    static boolean persistentAllowed(PrState s, Command cmd, ItNexus me) {
        ReservationRule rule = cmd.descriptor().reservation();
        if (rule == ReservationRule.ALWAYS_ALLOWED) {
            return true;
        }
        int op = cmd.opcode();
        if (special(op)) {
            return true;
        }
        Registration mine = s.registrationOf(me);
        if (s.isHolder(mine)) {
            return true;
        }
        if (op == ScsiOpcode.PREVENT_ALLOW_MEDIUM_REMOVAL) {
            rule = (cmd.cdb()[4] & 0x03) == 0 ? ReservationRule.ALWAYS_ALLOWED : ReservationRule.WRITE;
            if (rule == ReservationRule.ALWAYS_ALLOWED) {
                return true;
            }
        }
        return s.tableAllows(rule != ReservationRule.READ, mine != null);
    }
}
