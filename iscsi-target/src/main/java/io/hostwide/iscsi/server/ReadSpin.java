package io.hostwide.iscsi.server;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Busy-polls a connection for a few microseconds before its reader blocks in {@code read}, while polling pays.
 *
 * <p>At queue depth 1 the next command usually arrives within tens of microseconds of our response; a blocked
 * reader then pays a scheduler wake-up on every command. Polling {@code FIONREAD} (the socket adaptor's
 * {@code available()}, which never blocks) for a bounded time takes the command without that wake-up. Only a few
 * readers may spin at once (half the cores, at least one), so many idle connections never starve the machine;
 * a reader that cannot get a spin slot simply blocks. A budget of 0 turns polling off.
 *
 * <p>Adaptive, per connection ({@link State}), so that polling never makes things worse (issue 13: with other work
 * on the machine the 4 KiB read ratio against tgtd fell from 3x to 2x):
 * <ul>
 *   <li>a poll that runs out of budget with nothing read was wasted CPU: the next {@code backoff} waits block at
 *       once, and {@code backoff} doubles with each further miss (up to {@link #MAX_BACKOFF}); a poll that finds
 *       data resets it, so a connection whose initiator answers fast keeps polling every time;</li>
 *   <li>a poll that sees the clock jump by more than {@link #PREEMPTED_NANOS} between two looks was descheduled:
 *       another runnable thread wanted this core, so the CPU is contended, and spinning there only delays that
 *       thread (perhaps the very initiator or I/O thread we wait for). It stops at once and backs off as after
 *       {@link #PREEMPTED_MISSES} misses.</li>
 * </ul>
 */
final class ReadSpin {
    /** A gap this long between two looks at the clock in the poll loop means the thread was descheduled. */
    static final long PREEMPTED_NANOS = 20_000;
    /** Longest run of waits that block without polling after misses. */
    static final int MAX_BACKOFF = 256;
    /** A preemption backs off as this many misses in a row would (from a fresh record: the next 8 waits block). */
    static final int PREEMPTED_MISSES = 4;

    private final long budgetNanos;
    private final int maxSpinners;
    private final AtomicInteger spinners = new AtomicInteger();
    private final LongSupplier clock;

    /** A connection's polling record; used by its reader thread only. */
    static final class State {
        /** Waits still to block without polling. */
        int skip;
        /** The skip to set after the next miss. */
        int backoff = 1;
        /** Polls that found data / ran out / were preempted, for stat and tests. */
        long hits;
        long misses;
        long preempted;
    }

    ReadSpin(long budgetNanos) {
        this(budgetNanos, Math.max(1, Runtime.getRuntime().availableProcessors() / 2), System::nanoTime);
    }

    ReadSpin(long budgetNanos, int maxSpinners) {
        this(budgetNanos, maxSpinners, System::nanoTime);
    }

    ReadSpin(long budgetNanos, int maxSpinners, LongSupplier clock) {
        this.budgetNanos = Math.max(0, budgetNanos);
        this.maxSpinners = maxSpinners;
        this.clock = clock;
    }

    long budgetNanos() {
        return budgetNanos;
    }

    /** {@link #await(InputStream, State)} with a fresh record (no history: it polls). */
    void await(InputStream in) throws IOException {
        await(in, new State());
    }

    /**
     * Waits up to the budget for bytes to be readable on {@code in}, unless {@code s} says polling has not been
     * paying. Returns normally either way; the caller then reads (blocking if nothing came).
     */
    void await(InputStream in, State s) throws IOException {
        if (budgetNanos == 0 || in.available() > 0) {
            return;
        }
        if (s.skip > 0) {
            s.skip--;
            return;
        }
        if (spinners.incrementAndGet() > maxSpinners) {
            spinners.decrementAndGet();
            return;
        }
        try {
            long start = clock.getAsLong();
            long last = start;
            for (;;) {
                Thread.onSpinWait();
                if (in.available() > 0) {
                    s.hits++;
                    s.backoff = 1;
                    return;
                }
                long now = clock.getAsLong();
                if (now - last > PREEMPTED_NANOS) {
                    s.preempted++;
                    missed(s, PREEMPTED_MISSES);
                    return;
                }
                if (now - start >= budgetNanos) {
                    s.misses++;
                    missed(s, 1);
                    return;
                }
                last = now;
            }
        } finally {
            spinners.decrementAndGet();
        }
    }

    private static void missed(State s, int times) {
        for (int i = 0; i < times; i++) {
            s.skip = s.backoff;
            s.backoff = Math.min(MAX_BACKOFF, s.backoff * 2);
        }
    }
}
