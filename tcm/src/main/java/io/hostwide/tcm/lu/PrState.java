package io.hostwide.tcm.lu;

import java.util.List;

/**
 * Immutable persistent and SPC-2 reservation state of one LU, published in one volatile write: the reservation
 * gate reads it without a lock (LIO takes dev_reservation_lock per command; seed 002 names it the lock left).
 *
 * @param generation    PRgeneration (SPC-4 §6.15.2), 32-bit wrapping
 * @param registrations in registration order
 * @param type          persistent reservation type ({@link PrType}), 0 when none
 * @param holder        the holding registration of a non all-registrants reservation, else null
 * @param spc2Holder    the I_T nexus holding an SPC-2 RESERVE, by name, or null
 * @param aptpl         activate persist through power loss (SPC-4 §5.13.5), the last APTPL bit received
 */
public record PrState(int generation, List<Registration> registrations, int type, Registration holder,
                      Spc2Holder spc2Holder, boolean aptpl) {

    public static final PrState EMPTY = new PrState(0, List.of(), 0, null, null, false);

    /**
     * What a gateway caches while it cannot trust its copy of a shared state (store unreachable, watch broken):
     * never {@link #quiet()}, so the gate's fast path stays one volatile read and a reference compare tells it
     * apart. Never stored or serialised.
     */
    public static final PrState UNTRUSTED = new PrState(0, List.of(), 0, null, new Spc2Holder("", ""), false);

    public PrState {
        registrations = List.copyOf(registrations);
    }

    /** Nothing can conflict: the gate's fast path. */
    public boolean quiet() { return type == 0 && spc2Holder == null; }

    public boolean untrusted() { return this == UNTRUSTED; }

    /** A copy with another SPC-2 holder. */
    public PrState withSpc2Holder(Spc2Holder h) {
        return new PrState(generation, registrations, type, holder, h, aptpl);
    }

    /** Whether I_T nexus {@code s} holds the SPC-2 reservation. */
    public boolean isSpc2Holder(ItNexus s) { return spc2Holder != null && spc2Holder.matches(s); }

    public boolean reserved() { return type != 0; }

    /** The registration of {@code s}'s I_T nexus, or null. */
    public Registration registrationOf(ItNexus s) {
        for (Registration r : registrations) {
            if (r.matches(s)) {
                return r;
            }
        }
        return null;
    }

    /** SPC-4 §5.13.10: every registrant holds an all-registrants reservation. */
    public boolean isHolder(Registration r) {
        if (r == null || type == 0) {
            return false;
        }
        return PrType.allRegistrants(type) ? registrations.contains(r) : r.equals(holder);
    }

    public boolean isHolder(ItNexus s) { return type != 0 && isHolder(registrationOf(s)); }

    /**
     * SPC-4 §5.13.1 Table 63 for an I_T nexus that does not hold the persistent reservation: whether a command that
     * reads ({@code write} false) or changes the medium passes, given whether the nexus is registered.
     */
    public boolean tableAllows(boolean write, boolean registered) {
        if (PrType.writeExclusive(type) && !write) {
            return true;
        }
        if (type == PrType.WRITE_EXCLUSIVE || type == PrType.EXCLUSIVE_ACCESS) {
            return false;
        }
        return registered;
    }

    /**
     * Whether I_T nexus {@code me} may read ({@code write} false) or write the medium under these reservations, the
     * SPC-2 one first: the copy manager checks its copy targets with this (SPC-4 §6.4).
     */
    public boolean allows(ItNexus me, boolean write) {
        if (quiet()) {
            return true;
        }
        if (spc2Holder != null && !spc2Holder.matches(me)) {
            return false;
        }
        return !reserved() || isHolder(me) || tableAllows(write, registrationOf(me) != null);
    }
}
