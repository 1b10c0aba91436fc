package io.hostwide.blk;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The parent of a split bio ({@code bio_chain}): each piece completes into it, and the submitter's callback runs
 * exactly once, after the last piece, with the first error any piece reported (OK when none did). The submitter
 * holds one extra count while it sends the pieces, so the parent cannot end before the last piece is out.
 * Allocated per split bio only: a bio within the limits never sees one.
 */
final class SplitParent implements IoCallback {
    private static final VarHandle REMAINING;
    private static final VarHandle STATUS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            REMAINING = l.findVarHandle(SplitParent.class, "remaining", int.class);
            STATUS = l.findVarHandle(SplitParent.class, "status", BlkStatus.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final IoCallback cb;
    private final long userData;
    @SuppressWarnings("unused") private volatile int remaining = 1;
    @SuppressWarnings("unused") private volatile BlkStatus status;

    SplitParent(IoCallback cb, long userData) {
        this.cb = cb;
        this.userData = userData;
    }

    /** One more piece is about to be sent. */
    void addPiece() {
        REMAINING.getAndAdd(this, 1);
    }

    /** The submitter is done sending pieces: drops its own count. */
    void sent() {
        put();
    }

    @Override
    public void onComplete(long piece, BlkStatus st) {
        if (st != BlkStatus.OK) {
            // First error wins; the CAS publishes it before this piece's decrement below.
            STATUS.compareAndSet(this, (BlkStatus) null, st);
        }
        put();
    }

    private void put() {
        // Acq/rel RMW: the last decrementer sees every piece's status write (each CAS happens before its decrement).
        if ((int) REMAINING.getAndAdd(this, -1) == 1) {
            BlkStatus st = (BlkStatus) STATUS.getAcquire(this);
            cb.onComplete(userData, st == null ? BlkStatus.OK : st);
        }
    }
}
