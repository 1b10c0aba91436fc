package io.hostwide.tcm.core;

import io.hostwide.tcm.dispatch.CommandDescriptor;
import io.hostwide.tcm.dispatch.CommandTable;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.spi.AsyncBackstore;

import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;

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
    /** The backstore blocks but can sometimes read without blocking: TRY_NOWAIT reads are tried inline first. */
    private final boolean tryNowait;
    /** The same for writes (Data-Out TRY_NOWAIT commands, {@link io.hostwide.tcm.spi.Backstore#writesNow}). */
    private final boolean tryNowaitWrites;
    /** TRY_NOWAIT attempts that finished inline / that went to the I/O queue after all (for dumps). */
    private final LongAdder nowaitDone = new LongAdder();
    private final LongAdder nowaitQueued = new LongAdder();
    private final LongAdder nowaitWritesDone = new LongAdder();
    private final LongAdder nowaitWritesQueued = new LongAdder();
    private final boolean asyncBackstore;

    LuRuntime(Device device, CommandTable commandTable) {
        this.device = device;
        this.commandTable = commandTable;
        this.asyncBackstore = device.backstore() instanceof AsyncBackstore;
        this.ioQueue = device.backstore().blocking() ? new BlkIoQueue("dev-" + device.name(),
                device.attributes().queueDepth(), device.attributes().ioThreads()) : null;
        this.tryNowait = ioQueue != null && device.backstore().readsNow();
        this.tryNowaitWrites = ioQueue != null && device.backstore().writesNow();
    }

    Device device() { return device; }

    CommandTable commandTable() { return commandTable; }

    /** The I/O queue of a blocking backstore, or null when commands run inline. */
    IoQueue ioQueue() { return ioQueue; }

    TaskSet taskSet() { return taskSet; }

    /** Whether TRY_NOWAIT reads are tried on the submitting thread before the I/O queue. */
    boolean tryNowait() { return tryNowait; }

    /** Whether TRY_NOWAIT writes are tried on the submitting thread before the I/O queue. */
    boolean tryNowaitWrites() { return tryNowaitWrites; }

    /**
     * Whether this TRY_NOWAIT command is tried on the submitting thread: writes and reads are told apart, and a
     * backstore that found out it cannot write without blocking after all (ext4's EOPNOTSUPP) is not asked again.
     */
    boolean tryNowait(CommandDescriptor d) {
        return d.direction() == CommandDescriptor.DATA_OUT ? tryNowaitWrites && device.backstore().writesNow()
                : tryNowait;
    }

    void nowaitOutcome(CommandDescriptor d, boolean done) {
        if (d.direction() == CommandDescriptor.DATA_OUT) {
            (done ? nowaitWritesDone : nowaitWritesQueued).increment();
        } else {
            (done ? nowaitDone : nowaitQueued).increment();
        }
    }

    long nowaitDone() { return nowaitDone.sum(); }

    long nowaitQueued() { return nowaitQueued.sum(); }

    long nowaitWritesDone() { return nowaitWritesDone.sum(); }

    long nowaitWritesQueued() { return nowaitWritesQueued.sum(); }
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
