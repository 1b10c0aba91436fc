package io.hostwide.blk;

import java.util.concurrent.locks.LockSupport;

/**
 * Queue freezing ({@code blk_mq_freeze_queue} over {@code q_usage_counter}, digest
 * §2.10): new submissions wait at the queue's entry, submitters already inside
 * finish allocating, and every allocated request drains. Used to switch schedulers
 * with I/O running. The usage counter is per software queue ({@link Ctx#enterQueue})
 * so the submit path touches no shared line, like the kernel's percpu_ref.
 */
final class Freeze {
    private static final long POLL_NANOS = 200_000L;

    private final RequestQueue q;
    /** Written under {@code this}; read lock-free by submitters. */
    private volatile boolean frozen;
    private int depth;

    Freeze(RequestQueue q) {
        this.q = q;
    }

    boolean isFrozen() {
        return frozen;
    }

    /** Returns once no submitter is inside the queue and no request of the queue is allocated. */
    void freeze() {
        synchronized (this) {
            depth++;
            frozen = true;
        }
        // The volatile write above and each submitter's full-fence increment in
        // Ctx.enterQueue followed by its volatile read of frozen: either the submitter
        // sees frozen and backs out, or we see its count here and wait for it.
        for (Ctx c : q.ctxs) {
            while (c.usage() != 0) {
                kickAndPause();
            }
        }
        while (q.allocatedRequests() != 0) {
            kickAndPause();
        }
    }

    /** Runs what is queued (inline, so a manual executor does not stall the drain) and backs off briefly. */
    private void kickAndPause() {
        q.runHwQueues(false);
        q.kickRequeueList();
        LockSupport.parkNanos(POLL_NANOS);
    }

    void unfreeze() {
        synchronized (this) {
            if (depth == 0) {
                throw new IllegalStateException("unfreeze without freeze on " + q.name);
            }
            if (--depth == 0) {
                frozen = false;
                notifyAll();
            }
        }
    }

    /** Waits until the queue is unfrozen; false if interrupted or the queue is going away. */
    boolean waitUnfrozen() {
        synchronized (this) {
            while (frozen && !q.isDying()) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return !q.isDying();
    }

    /** Wakes waiting submitters so they see the queue dying. */
    void wakeWaiters() {
        synchronized (this) {
            notifyAll();
        }
    }
}
