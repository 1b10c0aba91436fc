/**
 * The iSCSI initiator (the iscsi_tcp / libiscsi role, DESIGN.md): a {@link io.hostwide.scsi.mid.LowLevelDriver} whose
 * SCSI host is one iSCSI session. Each connection of the session is a hardware queue; the session's CmdSN window is the
 * host-wide tag space ({@code host_tagset}). {@link IscsiHba} logs in, scans and hands out a
 * {@link io.hostwide.scsi.sd.ScsiDisk} per LUN; {@link IscsiDeviceProvider} registers the {@code iscsi:} device kind;
 * {@link SendTargetsDiscovery} runs a Discovery session (SendTargets=All) at a portal.
 */
package io.hostwide.iscsi.initiator;
