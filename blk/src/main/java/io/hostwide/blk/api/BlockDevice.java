package io.hostwide.blk.api;

import io.hostwide.blk.RequestQueue;

/**
 * What a consumer (the {@code bench} CLI, an embedder) sees of any block device —
 * a null device, later an emulated SCSI disk or an iSCSI LUN: a name, a logical
 * block size, a capacity, and per-thread {@link SubmitHandle}s for asynchronous I/O.
 */
public interface BlockDevice extends AutoCloseable {

    String name();

    /** Bytes per logical block; offsets and lengths are multiples of it. */
    int logicalBlockSize();

    long capacityBytes();

    /** A handle for one job thread (it owns one software queue); not thread-safe. */
    SubmitHandle openHandle();

    /** The request queue, for {@code hostwide stat}. */
    RequestQueue queue();

    /** Waits for outstanding I/O, then releases the device. */
    @Override
    void close();
}
