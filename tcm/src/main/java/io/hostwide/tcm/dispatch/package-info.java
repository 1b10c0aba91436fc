/**
 * What the handlers and gates are written against (LIO's se_cmd and the sbc/spc ops tables): the handler's view of
 * a command ({@link io.hostwide.tcm.dispatch.Command}), the command table and its rows
 * ({@link io.hostwide.tcm.dispatch.CommandTable}, {@link io.hostwide.tcm.dispatch.CommandDescriptor},
 * {@link io.hostwide.tcm.dispatch.Row}), and the gates between decoding and execution
 * ({@link io.hostwide.tcm.dispatch.CommandGate}, {@link io.hostwide.tcm.dispatch.GateSlot}). The core implements
 * {@code Command} and walks the table; nothing here knows the core. Depends on {@code port}, {@code lu} and
 * {@code spi}.
 */
package io.hostwide.tcm.dispatch;
