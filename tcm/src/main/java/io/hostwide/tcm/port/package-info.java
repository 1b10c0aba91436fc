/**
 * How logical units are exported (LIO's portal groups, ACLs and LUN maps): a {@link io.hostwide.tcm.port.ScsiTarget}
 * owns {@link io.hostwide.tcm.port.TargetPort}s, each exporting LUNs and deciding who may log in, by
 * {@link io.hostwide.tcm.port.NodeAcl} or in demo mode. Changes are told to the core through
 * {@link io.hostwide.tcm.port.TargetPort.Listener}, never by calling it. Depends on {@code lu} only.
 */
package io.hostwide.tcm.port;
