/**
 * The transport-independent SCSI target core: {@link io.hostwide.target.TargetCore} (registry and pipeline),
 * the Fabric SPI ({@link io.hostwide.target.Fabric}, {@link io.hostwide.target.Session},
 * {@link io.hostwide.target.TargetCommand}), the error vocabulary {@link io.hostwide.target.SenseReason}, and the
 * gates between decoding and execution ({@link io.hostwide.target.CommandGate}, {@link io.hostwide.target.GateSlot}).
 * See the module README for the contract a fabric follows.
 */
package io.hostwide.target;
