package io.hostwide.tcm.pr;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ServiceAction;
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
import java.util.List;
import java.util.function.Function;
import java.util.function.IntSupplier;

/**
 * PERSISTENT RESERVE OUT (SPC-4 §6.16, §5.13). The basic parameter list (SPC-4 Table 173) is 24 bytes: RESERVATION
 * KEY (0..7), SERVICE ACTION RESERVATION KEY (8..15), byte 20 SPEC_I_PT(3) ALL_TG_PT(2) APTPL(0). SPEC_I_PT is not
 * supported (REPORT CAPABILITIES SIP_C = 0) and is rejected as SPC-4 §6.16.3 asks; ALL_TG_PT is (ATP_C = 1).
 * REGISTER AND MOVE has its own list ({@link RegisterAndMove}). Each service action validates first, then builds
 * a function from the current {@link PrState} to a {@link PrChange}, which the LU's reservations commit (on a
 * shared store: again from the winner's state after a lost race); a rejected command changes nothing.
 */
public final class PersistentReserveOut {
    private PersistentReserveOut() {}

    static final int BASIC_LENGTH = 24;
    static final int SPEC_I_PT = 0x08;
    static final int ALL_TG_PT = 0x04;
    static final int APTPL = 0x01;

    public static int execute(Command cmd) {
        byte[] cdb = cmd.cdb();
        int sa = cdb[1] & 0x1F;
        long paramLength = BigEndian.u32(cdb, 5);
        if (sa == ServiceAction.PROUT_REGISTER_AND_MOVE) {
            return RegisterAndMove.execute(cmd, paramLength);
        }
        if (paramLength != BASIC_LENGTH || cmd.dataOutLength() < BASIC_LENGTH) {
            if (paramLength > BASIC_LENGTH && cmd.dataOutLength() > 20 && (cmd.outU8(20) & SPEC_I_PT) != 0) {
                return cmd.failParameterField(20, 3); // SIP_C = 0
            }
            return cmd.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        int flags = cmd.outU8(20);
        if ((flags & SPEC_I_PT) != 0) {
            return cmd.failParameterField(20, 3);
        }
        boolean register = sa == ServiceAction.PROUT_REGISTER || sa == ServiceAction.PROUT_REGISTER_AND_IGNORE_EXISTING_KEY;
        if ((flags & ALL_TG_PT) != 0 && !register) {
            return cmd.failParameterField(20, 2); // SPC-4 §6.16.3: ALL_TG_PT only for the register actions
        }
        if (needsType(sa)) {
            if ((cdb[2] >>> 4 & 0xF) != PrType.LU_SCOPE) {
                return cmd.failCdbField(2, 7);
            }
            if (!PrType.valid(cdb[2] & 0xF)) {
                return cmd.failCdbField(2, 3);
            }
        }
        Request r = new Request(cmd, cmd.outS64(0), cmd.outS64(8), flags, cdb[2] & 0xF);
        return switch (sa) {
            case ServiceAction.PROUT_REGISTER -> run(cmd, s -> register(s, r, false));
            case ServiceAction.PROUT_REGISTER_AND_IGNORE_EXISTING_KEY -> run(cmd, s -> register(s, r, true));
            case ServiceAction.PROUT_RESERVE -> run(cmd, s -> reserve(s, r));
            case ServiceAction.PROUT_RELEASE -> run(cmd, s -> release(s, r));
            case ServiceAction.PROUT_CLEAR -> run(cmd, s -> clear(s, r));
            case ServiceAction.PROUT_PREEMPT -> Preempt.execute(r, false);
            case ServiceAction.PROUT_PREEMPT_AND_ABORT -> Preempt.execute(r, true);
            default -> cmd.failCdbField(1, 4);
        };
    }

    private static boolean needsType(int sa) {
        return sa == ServiceAction.PROUT_RESERVE || sa == ServiceAction.PROUT_RELEASE
                || sa == ServiceAction.PROUT_PREEMPT || sa == ServiceAction.PROUT_PREEMPT_AND_ABORT;
    }

    /** One decoded request. */
    record Request(Command cmd, long key, long saKey, int flags, int type) {
        ItNexus session() { return cmd.nexus(); }

        boolean aptpl() { return (flags & APTPL) != 0; }

        boolean allTargetPorts() { return (flags & ALL_TG_PT) != 0; }
    }

    static final IntSupplier GOOD = () -> CommandDescriptor.DONE;

    static PrChange fail(Command cmd, SenseReason reason) { return PrChange.none(() -> cmd.fail(reason)); }

    /**
     * Runs writer {@code decide} through the LU's reservations (again on a fresh state after a lost race on a
     * shared store) and answers the command: the writer's finish, INSUFFICIENT REGISTRATION RESOURCES when the
     * APTPL file could not be written (nothing changed), BUSY when the shared store could not be reached.
     */
    static PersistentReservations.Result change(Command cmd, Function<PrState, PrChange> decide) {
        return cmd.device().reservations().change(decide);
    }

    static int answer(Command cmd, PersistentReservations.Result r) {
        return switch (r.status()) {
            case COMMITTED, UNCHANGED -> r.decided().finish().getAsInt();
            case PERSIST_FAILED -> cmd.fail(SenseReason.INSUFFICIENT_REGISTRATION_RESOURCES);
            case UNAVAILABLE -> cmd.fail(SenseReason.BUSY);
        };
    }

    static int run(Command cmd, Function<PrState, PrChange> decide) { return answer(cmd, change(cmd, decide)); }

    /** REGISTER / REGISTER AND IGNORE EXISTING KEY (SPC-4 §5.13.7). */
    private static PrChange register(PrState s, Request r, boolean ignoreKey) {
        Command cmd = r.cmd();
        Registration mine = s.registrationOf(r.session());
        if (mine == null) {
            if (!ignoreKey && r.key() != 0) {
                return fail(cmd, SenseReason.RESERVATION_CONFLICT);
            }
            if (r.saKey() == 0) {
                return PrChange.none(GOOD); // nothing to register, nothing changes
            }
            List<Registration> regs = new ArrayList<>(s.registrations());
            regs.add(Registration.of(r.session(), r.saKey(), r.allTargetPorts()));
            return PrChange.to(new PrState(s.generation() + 1, regs, s.type(), s.holder(), s.spc2Holder(), r.aptpl()), GOOD);
        }
        if (!ignoreKey && r.key() != mine.key()) {
            return fail(cmd, SenseReason.RESERVATION_CONFLICT);
        }
        if (r.saKey() != 0) {
            List<Registration> regs = new ArrayList<>(s.registrations());
            Registration changed = mine.withKey(r.saKey());
            regs.set(regs.indexOf(mine), changed);
            Registration holder = mine.equals(s.holder()) ? changed : s.holder();
            return PrChange.to(new PrState(s.generation() + 1, regs, s.type(), holder, s.spc2Holder(), r.aptpl()), GOOD);
        }
        return unregister(r, s, mine);
    }

    /**
     * SPC-4 §5.13.11.2.3: unregistering the holder of a non all-registrants reservation releases it, and only a
     * registrants-only one tells the other registrants (RESERVATIONS RELEASED); an all-registrants reservation
     * goes with its last registrant, silently. Nobody else hears anything (tgt's stray 2Ah/04h is the bug
     * libiscsi ProutReserve.Ownership* catches).
     */
    private static PrChange unregister(Request r, PrState s, Registration mine) {
        List<Registration> regs = new ArrayList<>(s.registrations());
        regs.remove(mine);
        int type = s.type();
        Registration holder = s.holder();
        boolean releasedRo = false;
        if (type != 0 && PrType.allRegistrants(type)) {
            if (regs.isEmpty()) {
                type = 0;
            }
        } else if (mine.equals(holder)) {
            releasedRo = PrType.registrantsOnly(type);
            type = 0;
            holder = null;
        }
        PrState next = new PrState(s.generation() + 1, regs, type, holder, s.spc2Holder(), r.aptpl());
        return releasedRo
                ? PrChange.to(next, GOOD, PrNotice.of(Asc.RESERVATIONS_RELEASED, regs, List.of(), r.session(), false))
                : PrChange.to(next, GOOD);
    }

    /** RESERVE (SPC-4 §5.13.9). */
    private static PrChange reserve(PrState s, Request r) {
        Command cmd = r.cmd();
        Registration mine = s.registrationOf(r.session());
        if (mine == null || mine.key() != r.key()) {
            return fail(cmd, SenseReason.RESERVATION_CONFLICT);
        }
        if (s.spc2Holder() != null && !s.isSpc2Holder(r.session())) {
            return fail(cmd, SenseReason.RESERVATION_CONFLICT);
        }
        if (s.reserved()) {
            // the holder asking again for the same type is GOOD; anything else conflicts
            return s.isHolder(mine) && s.type() == r.type() ? PrChange.none(GOOD)
                    : fail(cmd, SenseReason.RESERVATION_CONFLICT);
        }
        Registration holder = PrType.allRegistrants(r.type()) ? null : mine;
        return PrChange.to(new PrState(s.generation(), s.registrations(), r.type(), holder, s.spc2Holder(), s.aptpl()), GOOD);
    }

    /** RELEASE (SPC-4 §5.13.11.2.2). */
    private static PrChange release(PrState s, Request r) {
        Command cmd = r.cmd();
        Registration mine = s.registrationOf(r.session());
        if (mine == null || mine.key() != r.key()) {
            return fail(cmd, SenseReason.RESERVATION_CONFLICT);
        }
        if (!s.reserved() || !s.isHolder(mine)) {
            return PrChange.none(GOOD); // no reservation, or not the holder: GOOD, no effect
        }
        if (s.type() != r.type()) {
            return fail(cmd, SenseReason.INVALID_RELEASE_OF_PERSISTENT_RESERVATION);
        }
        int released = s.type();
        PrState next = new PrState(s.generation(), s.registrations(), 0, null, s.spc2Holder(), s.aptpl());
        if (PrType.registrantsOnly(released) || PrType.allRegistrants(released)) {
            return PrChange.to(next, GOOD,
                    PrNotice.of(Asc.RESERVATIONS_RELEASED, next.registrations(), List.of(), r.session(), false));
        }
        return PrChange.to(next, GOOD);
    }

    /** CLEAR (SPC-4 §5.13.11.2.6): every registration and the reservation go; the others hear RESERVATIONS PREEMPTED. */
    private static PrChange clear(PrState s, Request r) {
        Command cmd = r.cmd();
        Registration mine = s.registrationOf(r.session());
        if (mine == null || mine.key() != r.key()) {
            return fail(cmd, SenseReason.RESERVATION_CONFLICT);
        }
        return PrChange.to(new PrState(s.generation() + 1, List.of(), 0, null, s.spc2Holder(), s.aptpl()), GOOD,
                PrNotice.of(Asc.RESERVATIONS_PREEMPTED, s.registrations(), List.of(), r.session(), false));
    }
}
