/**
 * SCSI protocol facts with no behaviour: operation codes, service actions, status codes, sense keys,
 * ASC/ASCQ values, CDB layouts (6/10/12/16/32 bytes), fixed and descriptor sense data, VPD and mode page
 * layouts, LUN addressing. Names follow SPC-4/SBC-4/SAM-5; layouts are drawn once with their offsets.
 * Both sides of the stack (the target core and the initiator midlayer) read the wire through these classes.
 */
package io.hostwide.scsi.spec;
