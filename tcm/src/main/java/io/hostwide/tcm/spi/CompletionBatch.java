package io.hostwide.tcm.spi;

/**
 * Lets a thread that completes many commands in a row (an asynchronous backstore's completion poller) have the
 * fabrics send their responses once per batch instead of once per command: between {@link #open()} and
 * {@link #close()}, a fabric that would flush a connection right after a completion registers the flush with
 * {@link #defer} instead, and {@link #close()} runs each registered flush once. With QD commands in flight one
 * drain of completions then costs one gathering write (and one wake-up of the initiator) per connection, not one
 * per command: the io_uring / SPDK habit of completing in batches.
 *
 * <p>A batch belongs to the thread that opened it (a thread-local); completions on other threads, and on this one
 * when no batch is open, flush at once as before. Batches do not nest: {@link #open()} inside an open batch
 * returns that batch's sub-scope, whose {@link #close()} leaves the flushes to the outer one. The flushes run
 * before {@link #close()} returns, so responses wait at most for the rest of the batch, never for later I/O.
 * Not thread-safe by design: only the owning thread touches it.
 */
public final class CompletionBatch implements AutoCloseable {
    private static final ThreadLocal<CompletionBatch> CURRENT = new ThreadLocal<>();
    private static final int MAX_DEFERRED = 64;

    private final Runnable[] deferred = new Runnable[MAX_DEFERRED];
    private int count;
    private int depth;

    private CompletionBatch() { }

    /** Opens (or re-enters) this thread's batch; close it in a finally block (try-with-resources). */
    public static CompletionBatch open() {
        CompletionBatch b = CURRENT.get();
        if (b == null) {
            b = new CompletionBatch();
            CURRENT.set(b);
        }
        b.depth++;
        return b;
    }

    /**
     * Defers {@code flush} to the end of this thread's open batch; false (run it yourself, now) when no batch is
     * open here or the batch is full. The same flush (by identity) is registered once however often it is deferred.
     */
    public static boolean defer(Runnable flush) {
        CompletionBatch b = CURRENT.get();
        if (b == null || b.depth == 0) {
            return false;
        }
        for (int i = 0; i < b.count; i++) {
            if (b.deferred[i] == flush) {
                return true;
            }
        }
        if (b.count == MAX_DEFERRED) {
            return false;
        }
        b.deferred[b.count++] = flush;
        return true;
    }

    /** Ends the outermost scope by running every deferred flush once (each even if an earlier one threw). */
    @Override
    public void close() {
        if (--depth > 0) {
            return;
        }
        RuntimeException first = null;
        for (int i = 0; i < count; i++) {
            Runnable r = deferred[i];
            deferred[i] = null;
            try {
                r.run();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        count = 0;
        if (first != null) {
            throw first;
        }
    }
}
