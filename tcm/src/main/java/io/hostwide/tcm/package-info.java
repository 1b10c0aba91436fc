/**
 * The entry point of the SCSI target core: {@link io.hostwide.tcm.TargetCore}, which fabrics and the serve assembly
 * hold. The layers below it, bottom to top: {@code spi} (Backstore, Fabric, TargetCommand, SenseReason),
 * {@code backstore}, {@code lu} (per-LU state), {@code port} (targets, ports, ACLs), {@code dispatch} (the handler's
 * view of a command, command tables, gates), the command sets {@code spc}, {@code sbc}, {@code pr}, {@code alua},
 * {@code xcopy} (independent of each other), {@code core} (registry, pipeline, command lifecycle) and {@code tmf}.
 * See the module README for the contract a fabric follows.
 */
package io.hostwide.tcm;
