/**
 * The reservation command set (SPC-4 §5.13, SPC-2 §5.5): PERSISTENT RESERVE IN/OUT, RESERVE/RELEASE(6)/(10), the
 * rows it adds to a table ({@link io.hostwide.tcm.pr.PrCommands}) and the reservation gate (SPC-4 Table 63). The
 * reservation state itself is per-LU state ({@code io.hostwide.tcm.lu.PersistentReservations}); PREEMPT AND ABORT
 * aborts through the handler's view of the command. Uses no other command set.
 */
package io.hostwide.tcm.pr;
