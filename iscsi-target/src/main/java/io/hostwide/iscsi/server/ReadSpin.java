package io.hostwide.iscsi.server;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Busy-polls a connection for a few microseconds before its reader blocks in {@code read}.
 *
 * <p>At queue depth 1 the next command usually arrives within tens of microseconds of our response; a blocked
 * reader then pays a scheduler wake-up on every command. Polling {@code FIONREAD} (the socket adaptor's
 * {@code available()}, which never blocks) for a bounded time takes the command without that wake-up. Only a few
 * readers may spin at once (half the cores, at least one), so many idle connections never starve the machine;
 * a reader that cannot get a spin slot simply blocks. A budget of 0 turns polling off.
 */
final class ReadSpin {
    private final long budgetNanos;
    private final int maxSpinners;
    private final AtomicInteger spinners = new AtomicInteger();

    ReadSpin(long budgetNanos) {
        this(budgetNanos, Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
    }

    ReadSpin(long budgetNanos, int maxSpinners) {
        this.budgetNanos = Math.max(0, budgetNanos);
        this.maxSpinners = maxSpinners;
    }

    long budgetNanos() {
        return budgetNanos;
    }

    /**
     * Waits up to the budget for bytes to be readable on {@code in}. Returns normally either way; the caller then
     * reads (blocking if nothing came).
     */
    void await(InputStream in) throws IOException {
        if (budgetNanos == 0 || in.available() > 0) {
            return;
        }
        if (spinners.incrementAndGet() > maxSpinners) {
            spinners.decrementAndGet();
            return;
        }
        try {
            long deadline = System.nanoTime() + budgetNanos;
            do {
                Thread.onSpinWait();
                if (in.available() > 0) {
                    return;
                }
            } while (System.nanoTime() - deadline < 0);
        } finally {
            spinners.decrementAndGet();
        }
    }
}
