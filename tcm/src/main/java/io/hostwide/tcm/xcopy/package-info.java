/**
 * The copy manager (SPC-4 §6.4, §6.18): EXTENDED COPY (LID1) and RECEIVE COPY RESULTS, with the rows and the
 * Third-party Copy VPD page (8Fh) it adds to a table ({@link io.hostwide.tcm.xcopy.CopyCommands}). Held results
 * are per-LU state ({@code io.hostwide.tcm.lu.CopyResults}); reservations of copy targets are checked through the
 * LU's reservation state. Uses no other command set.
 */
package io.hostwide.tcm.xcopy;
