package io.hostwide.blk;

/**
 * Completion of one submitted I/O ({@code bio->bi_end_io}). Called exactly once,
 * on whatever thread completed the request; keep it short and do not block.
 * {@code userData} is the caller's own value from submission (io_uring's
 * {@code user_data}), so one callback object serves every I/O without allocation.
 */
@FunctionalInterface
public interface IoCallback {
    void onComplete(long userData, BlkStatus status);
}
