/** The I/O queue that keeps blocking backstores off network threads (bounded by a blk tag set). */
package io.hostwide.tcm.core;
