package io.hostwide.sbitmap;

import java.util.concurrent.locks.LockSupport;

/** An exclusive sleeping allocator on a wait queue ({@code prepare_to_wait_exclusive}). */
final class Sleeper {
    final Thread thread;
    /** Set by the waker after it has taken this sleeper off its queue. */
    volatile boolean woken;

    Sleeper(Thread thread) {
        this.thread = thread;
    }

    void wake() {
        woken = true; // volatile write, read by await() after unpark
        LockSupport.unpark(thread);
    }

    /** Parks until woken (true), or until the deadline passes or the thread is interrupted (false). */
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
        return true;
    }
}
