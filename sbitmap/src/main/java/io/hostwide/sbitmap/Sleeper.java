package io.hostwide.sbitmap;

import java.util.concurrent.locks.LockSupport;

/**
 * An exclusive sleeping allocator on a wait queue ({@code prepare_to_wait_exclusive}): the wait entry of
 * {@link SbitmapQueue#getBlocking} and of callers that run their own wait loop with
 * {@link SbitmapQueue#prepareToWait} / {@link SbitmapQueue#finishWait} (blk-mq's {@code blk_mq_get_tag}).
 * A waker takes the sleeper off its queue, then sets {@link #woken} and unparks the thread
 * ({@code autoremove_wake_function}). One sleeper belongs to one thread at a time; it may be reused for
 * successive waits, and by another thread once the previous wait is over.
 */
public final class Sleeper {
    /** Marks a wake-up that must not be passed on: {@link SbitmapQueue#wakeAll} woke everybody. */
    static final int NO_PASS = Integer.MAX_VALUE;

    /** The sleeping thread; written by {@link SbitmapQueue#prepareToWait} before the sleeper is linked. */
    volatile Thread thread;
    /** Set by the waker after it has taken this sleeper off its queue. */
    volatile boolean woken;
    /**
     * How many times the wake-up that woke this sleeper had already been passed on (0 for a wake-up of a
     * completed batch, {@link #NO_PASS} for {@code wakeAll}). Plain: written by the waker before the volatile
     * write of {@link #woken}, read by the owner after reading it true (that write/read pair orders it).
     */
    int hops;
    /** The wait queue this sleeper was last linked on; owner-thread only. */
    int queue;
    /**
     * Owner-thread only: {@link #await} returned true since the last prepare, i.e. the owner took the
     * wake-up, so {@code finishWait} must not pass it on (the kernel's {@code finish_wait} after
     * {@code io_schedule} finds nothing to do).
     */
    boolean consumed;

    /** A sleeper for the calling thread. */
    public Sleeper() {
        this(Thread.currentThread());
    }

    Sleeper(Thread thread) {
        this.thread = thread;
    }

    /** Whether a waker has taken this sleeper off its queue since it was last prepared. */
    public boolean isWoken() {
        return woken;
    }

    void wake(int hopCount) {
        hops = hopCount;
        woken = true; // volatile write, read by await() after unpark; publishes hops
        LockSupport.unpark(thread);
    }

    /**
     * Parks until a waker takes this sleeper off its queue ({@code io_schedule}). Returns true when woken:
     * the caller has taken the wake-up (a later {@link SbitmapQueue#finishWait} will not pass it on; if the
     * caller cannot use it, {@link SbitmapQueue#passWakeOn} can). Returns false if the thread is interrupted
     * first (the interrupt status is left set); the caller must then call {@link SbitmapQueue#finishWait}.
     * Spurious unparks are absorbed.
     */
    public boolean await() {
        return await(false, 0L);
    }

    /**
     * Parks until woken (true, the wake-up taken), or until the deadline passes or the thread is
     * interrupted (false).
     */
    boolean await(boolean timed, long deadline) {
        while (!woken) {
            if (Thread.currentThread().isInterrupted()) {
                return false;
            }
            if (timed) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, left);
            } else {
                LockSupport.park(this);
            }
        }
        consumed = true;
        return true;
    }
}
