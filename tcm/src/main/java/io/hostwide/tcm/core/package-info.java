/**
 * The core (LIO's target_core_transport, _device and _tpg): the {@link io.hostwide.tcm.core.Registry} of targets,
 * ports, devices and sessions; the {@link io.hostwide.tcm.core.Pipeline} a submitted command goes through (LUN
 * lookup, table row, CDB checks, gates, handler, completion); the {@link io.hostwide.tcm.core.CoreCommand} that is
 * both a fabric's {@link io.hostwide.tcm.spi.TargetCommand} and a handler's {@link io.hostwide.tcm.dispatch.Command},
 * with its pool, abort word and gate state; the task-attribute gate and task set; the
 * {@link io.hostwide.tcm.core.TaskAborter}; the I/O queue that keeps blocking backstores off network threads
 * (bounded by a blk tag set); and {@link io.hostwide.tcm.core.CommandTables}, the one place that assembles a device
 * type's command table from what each command set contributes. Above every handler package; below only the task
 * manager and the entry point.
 */
package io.hostwide.tcm.core;
