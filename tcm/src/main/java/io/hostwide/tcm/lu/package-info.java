/**
 * Per-logical-unit state (LIO's se_device and what hangs off it): the {@link io.hostwide.tcm.lu.Device} with its
 * backstore, attributes, mode pages, medium state, statistics and LBA range lock; the I_T_L nexuses that see it
 * ({@link io.hostwide.tcm.lu.SessionLun}, each with its unit attention queue), known by their
 * {@link io.hostwide.tcm.lu.ItNexus} view only; persistent and SPC-2 reservation state; ALUA target port groups and
 * their transitions; held EXTENDED COPY results; the LUN exports ({@link io.hostwide.tcm.lu.Lun}).
 *
 * <p>Everything here is state the handlers read and change; nothing here knows a command, a command table, a
 * session's command pool or the core. Depends on {@code spi} only.
 */
package io.hostwide.tcm.lu;
