/**
 * The loop fabric (tcm_loop's role) and the scsi_debug-style emulated HBA built on it: a SCSI midlayer host whose
 * low-level driver hands every command straight to the target core in process, with delay, seek and error
 * injection knobs. Device kinds {@code loop:} and {@code debug:} for {@code BlockDevices.open}.
 */
package io.hostwide.loop;
