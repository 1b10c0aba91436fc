/**
 * The ALUA command set (SPC-4 §5.15): REPORT and SET TARGET PORT GROUPS, the rows it adds to a table
 * ({@link io.hostwide.tcm.alua.TargetPortGroupCommands}) and the ALUA gate. The target port groups, their states
 * and transitions are per-LU state ({@code io.hostwide.tcm.lu.AluaGroups}). Uses no other command set.
 */
package io.hostwide.tcm.alua;
