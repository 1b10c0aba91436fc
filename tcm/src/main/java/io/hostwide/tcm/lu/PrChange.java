package io.hostwide.tcm.lu;

import java.util.List;
import java.util.function.IntSupplier;

/**
 * What a reservation writer decided from one state: the next state (null: nothing changes), the unit attentions
 * it owes, and what finishes the command once the change is committed (or when nothing changes). A writer is a
 * function from state to {@code PrChange} without side effects, so that on a shared store it can be run again on
 * the winner's state after losing a compare-and-set; only {@code finish} touches the command.
 */
public record PrChange(PrState next, List<PrNotice> notices, IntSupplier finish) {

    public PrChange {
        notices = List.copyOf(notices);
    }

    /** Nothing changes; {@code finish} answers the command (GOOD, or a failure it sets). */
    public static PrChange none(IntSupplier finish) { return new PrChange(null, List.of(), finish); }

    public static PrChange to(PrState next, IntSupplier finish, PrNotice... notices) {
        return new PrChange(next, List.of(notices), finish);
    }
}
