/**
 * Machinery of the pipeline shared by every device type: command tables and their rows, mode page state, the
 * striped LBA range lock of the atomic write commands, and the I/O queue that keeps blocking backstores off
 * network threads (bounded by a blk tag set).
 */
package io.hostwide.tcm.core;
