/**
 * The transport-independent task manager (SAM-5 §7, LIO's target_core_tmr): {@link
 * io.hostwide.tcm.tmf.TaskManagement#request} performs a task management function for an I_T nexus and answers
 * with a {@link io.hostwide.tcm.tmf.TmfResult}; I_T nexus loss; the functions' side effects (resets, reservations,
 * unit attentions). Aborting itself is the core's ({@code io.hostwide.tcm.core.TaskAborter}). Above the core.
 */
package io.hostwide.tcm.tmf;
