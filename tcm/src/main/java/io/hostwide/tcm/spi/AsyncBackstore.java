package io.hostwide.tcm.spi;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The asynchronous form of the storage SPI, for a backstore whose storage answers later on a thread of its own
 * (Ceph RBD: librbd completes on its own threads, signalled through an eventfd). The core submits READ, WRITE and
 * SYNCHRONIZE CACHE here from the thread that runs the command and completes the command from {@link Done}, so a
 * logical unit keeps its queue depth in flight with no thread per command; everything else still goes through the
 * blocking {@link Backstore} methods on the device's I/O queue ({@link #blocking()} stays true).
 *
 * <p>Submission never waits for the storage's answer (it may wait for the storage client's own bound on what is in
 * flight, as librados' throttle, which then holds the submitting connection back). It returns false when the
 * backstore's own bound on operations in flight is reached (the core answers TASK SET FULL); when it returns true,
 * {@code done} is called exactly once, from any thread, possibly before the submit call returns.
 *
 * <p>Buffers: a write's {@code src} is consumed before the submit call returns (the caller may reuse it at once);
 * a read's {@code dst} is filled (between position and limit, position advanced) before {@code done} runs, so it
 * must stay valid until then. A backstore may have its storage fill a direct {@code dst} in place (RBD: librbd reads
 * straight into the command's Data-In buffer, saving a copy per read); then a read answered before the storage is done
 * with it (a watchdog's BUSY) reports a {@link BackstoreStatusException#dstRetained()} error, after which the caller
 * must never use that buffer again (the backstore keeps it referenced until the storage lets go of it).
 *
 * <p>A backstore that ends many operations in a row on one thread of its own (a completion poller) calls their
 * {@code done} inside a {@link CompletionBatch}, so that the fabrics send those responses with one write per
 * connection.
 */
public interface AsyncBackstore extends Backstore {

    /** The end of one submitted operation. */
    @FunctionalInterface
    interface Done {
        /** @param error null on success, else why it failed (see {@link BackstoreStatusException}) */
        void done(IOException error);
    }

    boolean submitRead(long lba, ByteBuffer dst, Done done);

    /** @param fua durable when {@code done} reports success (SBC-4 §5.43 FUA) */
    boolean submitWrite(long lba, ByteBuffer src, boolean fua, Done done);

    /** Every write completed before this call is durable when {@code done} reports success. */
    boolean submitFlush(Done done);
}
