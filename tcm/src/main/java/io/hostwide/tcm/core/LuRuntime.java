package io.hostwide.tcm.core;

import io.hostwide.tcm.dispatch.CommandTable;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.spi.AsyncBackstore;

import java.io.IOException;

/**
 * What the core attaches to a logical unit to run commands on it: the command table of its device type (built from
 * its attributes), the I/O queue of a blocking backstore and the task set the task-attribute gate orders. Kept
 * apart from {@link Device} so that the per-LU state does not depend on the machinery above it; the session's LUN
 * map hands it to each command with the device, in the same lookup.
 */
final class LuRuntime {
    private final Device device;
    private final CommandTable commandTable;
    private final IoQueue ioQueue;
    private final TaskSet taskSet = new TaskSet();
    private final boolean asyncBackstore;

    LuRuntime(Device device, CommandTable commandTable) {
        this.device = device;
        this.commandTable = commandTable;
        this.asyncBackstore = device.backstore() instanceof AsyncBackstore;
        this.ioQueue = device.backstore().blocking() ? new BlkIoQueue("dev-" + device.name(),
                device.attributes().queueDepth(), device.attributes().ioThreads()) : null;
    }

    Device device() { return device; }

    CommandTable commandTable() { return commandTable; }

    /** The I/O queue of a blocking backstore, or null when commands run inline. */
    IoQueue ioQueue() { return ioQueue; }

    TaskSet taskSet() { return taskSet; }

    /** The backstore takes READ/WRITE/SYNCHRONIZE CACHE asynchronously: those run inline, not on the I/O queue. */
    boolean asyncBackstore() { return asyncBackstore; }

    /** Stops the I/O queue (queued commands finish), then closes the device's backstore. */
    void close() throws IOException {
        if (ioQueue != null) {
            ioQueue.close();
        }
        device.close();
    }
}
