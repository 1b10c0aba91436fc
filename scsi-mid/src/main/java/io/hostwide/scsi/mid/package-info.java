/**
 * The SCSI midlayer (drivers/scsi/scsi_lib.c, hosts.c, scsi_error.c, scsi_scan.c; digest §4): hosts over one
 * blk tag set, targets, devices with a per-LUN budget bitmap, blocked countdowns, queue-full tracking, the starved
 * list, the {@code restarts} re-run logic, dispositions and error handling, and the low-level-driver SPI
 * ({@link io.hostwide.scsi.mid.LowLevelDriver}) that emulated HBAs, the loop fabric and the iSCSI initiator implement.
 */
package io.hostwide.scsi.mid;
