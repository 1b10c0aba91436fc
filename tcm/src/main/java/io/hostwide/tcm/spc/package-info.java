/**
 * The SPC-4 command set every device type shares: TEST UNIT READY, INQUIRY with its VPD pages (and the pages other
 * command sets contribute), REPORT LUNS, REQUEST SENSE, MODE SENSE/SELECT, REPORT SUPPORTED OPERATION CODES and
 * TASK MANAGEMENT FUNCTIONS; the rows it adds to a table ({@link io.hostwide.tcm.spc.SpcCommands}), the table for
 * LUNs a nexus does not have, and the unit attention gate. Uses no other command set.
 */
package io.hostwide.tcm.spc;
