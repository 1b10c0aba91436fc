/**
 * The transport-independent SCSI target core: {@link io.hostwide.tcm.TargetCore} (registry and pipeline),
 * the Fabric SPI ({@link io.hostwide.tcm.spi.Fabric}, {@link io.hostwide.tcm.Session},
 * {@link io.hostwide.tcm.TargetCommand}), the error vocabulary {@link io.hostwide.tcm.spi.SenseReason}, and the
 * gates between decoding and execution ({@link io.hostwide.tcm.dispatch.CommandGate}, {@link io.hostwide.tcm.dispatch.GateSlot}).
 * See the module README for the contract a fabric follows.
 */
package io.hostwide.tcm;
