package io.hostwide.tcm.lu;

import java.util.List;

/**
 * A unit attention a reservation change owes to other I_T nexuses (SPC-4 §5.13.11: RESERVATIONS PREEMPTED,
 * RESERVATIONS RELEASED, REGISTRATIONS PREEMPTED), named by registrations rather than by sessions, so that the
 * gateway that made the change and every gateway it notifies pick their own recipients the same way: every
 * nexus a registration in {@code to} matches, but none that one in {@code notTo} matches, and never the sender.
 *
 * @param abort PREEMPT AND ABORT: the recipients' commands on the LU are aborted too (SPC-4 §5.13.11.4.4)
 */
public record PrNotice(int ascAscq, List<Registration> to, List<Registration> notTo, String senderInitiatorPort,
                       String senderTargetPort, boolean abort) {

    public PrNotice {
        to = List.copyOf(to);
        notTo = List.copyOf(notTo);
    }

    public static PrNotice of(int ascAscq, List<Registration> to, List<Registration> notTo, ItNexus sender,
                              boolean abort) {
        return new PrNotice(ascAscq, to, notTo, sender.initiatorPortName(), sender.targetPortName(), abort);
    }

    public boolean selects(ItNexus n) {
        if (n.initiatorPortName().equals(senderInitiatorPort) && n.targetPortName().equals(senderTargetPort)) {
            return false;
        }
        return matchesAny(to, n) && !matchesAny(notTo, n);
    }

    private static boolean matchesAny(List<Registration> regs, ItNexus n) {
        for (Registration r : regs) {
            if (r.matches(n)) {
                return true;
            }
        }
        return false;
    }
}
