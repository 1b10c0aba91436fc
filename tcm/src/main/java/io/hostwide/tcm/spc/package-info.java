/** SPC-4 command handlers every device type shares (INQUIRY, REPORT LUNS, mode pages, ...) and the UA gate. */
package io.hostwide.tcm.spc;
