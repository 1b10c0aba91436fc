package io.hostwide.sbitmap;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The waiting half of {@code sbitmap_queue} (digest §1.6–§1.7): eight wait
 * queues, {@code ws_active}, {@code wake_index}, the {@code completion_cnt} /
 * {@code wakeup_cnt} gate and the wake batch.
 *
 * <p>{@code ws_active} counts entries linked on a queue: it rises when one is
 * linked and falls when whoever unlinks it (a waker, a timeout, a remove) does
 * so. While it is 0, {@link #wakeUp} does no work at all.
 *
 * <p>The hot counters sit 64 bytes apart in one padded {@code int[]}.
 */
final class SbqWaitQueues {

    private static final VarHandle CTR = MethodHandles.arrayElementVarHandle(int[].class);
    private static final VarHandle QUEUED_ON;

    static {
        try {
            QUEUED_ON = MethodHandles.lookup().findVarHandle(WaitEntry.class, "queuedOn", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final int WS_ACTIVE = 16;
    private static final int COMPLETION_CNT = 32;
    private static final int WAKEUP_CNT = 48;
    private static final int WAKE_INDEX = 64;
    private final int[] ctr = new int[WAKE_INDEX + 16];

    private final Queue[] ws = new Queue[SbitmapQueue.WAIT_QUEUES];
    /** Read once per wake-up ({@code READ_ONCE(sbq->wake_batch)}). */
    private volatile int wakeBatch;

    /** One wait queue: a lock, callback entries at the head and exclusive sleepers in arrival order behind them. */
    static final class Queue {
        final ReentrantLock lock = new ReentrantLock();
        final ArrayDeque<Object> waiters = new ArrayDeque<>();
        /** waiters.size(), readable without the lock ({@code waitqueue_active}). */
        volatile int count;
    }

    SbqWaitQueues(int wakeBatch) {
        this.wakeBatch = wakeBatch;
        for (int i = 0; i < ws.length; i++) {
            ws[i] = new Queue();
        }
    }

    int wakeBatch() {
        return wakeBatch;
    }

    /** Sets the batch; returns the previous one. */
    int setWakeBatch(int batch) {
        int old = wakeBatch;
        wakeBatch = batch;
        return old;
    }

    int wsActive() {
        return (int) CTR.getVolatile(ctr, WS_ACTIVE);
    }

    int wakeIndex() {
        return (int) CTR.getOpaque(ctr, WAKE_INDEX);
    }

    int queued(int queue) {
        return ws[queue].count;
    }

    /**
     * Wake-up processing for {@code nr} freed bits ({@code sbitmap_queue_wake_up}).
     * The caller has published the frees with a volatile RMW first.
     */
    void wakeUp(int nr) {
        // Volatile read: the other half of the store-load handshake whose first half is the
        // freer's volatile RMW on cleared/word; pairs with the increment in prepareToWait()
        // followed by the waiter's volatile re-read of the bitmap.
        if ((int) CTR.getVolatile(ctr, WS_ACTIVE) == 0) {
            return;
        }
        int batch = wakeBatch;
        if (nr != 0) {
            CTR.getAndAdd(ctr, COMPLETION_CNT, nr);
        }
        int wakeups = (int) CTR.getVolatile(ctr, WAKEUP_CNT);
        for (;;) {
            int completions = (int) CTR.getVolatile(ctr, COMPLETION_CNT);
            if (completions - wakeups < batch) {
                return;
            }
            // Only the thread whose CAS moves wakeup_cnt on by a batch wakes that batch.
            int witness = (int) CTR.compareAndExchange(ctr, WAKEUP_CNT, wakeups, wakeups + batch);
            if (witness == wakeups) {
                wakeNr(batch, 0);
                wakeups += batch; // a large batch free may owe more than one batch: loop
            } else {
                wakeups = witness;
            }
        }
    }

    /**
     * Wakes up to {@code nr} exclusive waiters, and every callback met on the way,
     * starting at wake_index and advancing it before each queue is inspected
     * ({@code __sbitmap_queue_wake_up}). {@code hops} is how often this wake-up was
     * passed on already (0 for a completed batch), recorded in each sleeper woken.
     */
    void wakeNr(int nr, int hops) {
        int start = (int) CTR.getOpaque(ctr, WAKE_INDEX);
        int index = start;
        for (int i = 0; i < ws.length; i++) {
            Queue q = ws[index];
            index = (index + 1) & (ws.length - 1);
            if (q.count == 0) {
                continue;
            }
            int woken = wakeQueue(q, nr, false, hops);
            if (woken >= nr) {
                break;
            }
            nr -= woken;
        }
        if (index != start) {
            CTR.setOpaque(ctr, WAKE_INDEX, index); // only a fairness position: no ordering needed
        }
    }

    /** Wakes everybody on every queue ({@code sbitmap_queue_wake_all}). */
    void wakeAll() {
        for (Queue q : ws) {
            if (q.count != 0) {
                wakeQueue(q, Integer.MAX_VALUE, true, Sleeper.NO_PASS);
            }
        }
    }

    /** Unlinks and wakes up to {@code nr} exclusive waiters (all when {@code all}); returns how many. */
    private int wakeQueue(Queue q, int nr, boolean all, int hops) {
        WaitEntry fired = null;
        int woken = 0;
        q.lock.lock();
        try {
            Object w;
            while ((all || woken < nr) && (w = q.waiters.pollFirst()) != null) {
                CTR.getAndAdd(ctr, WS_ACTIVE, -1);
                if (w instanceof Sleeper s) {
                    s.wake(hops);
                    woken++;
                } else {
                    WaitEntry e = (WaitEntry) w;
                    e.nextFired = fired;
                    fired = e;
                }
            }
            q.count = q.waiters.size();
        } finally {
            q.lock.unlock();
        }
        fire(fired);
        return woken;
    }

    /** Runs callbacks outside the queue lock; an entry counts as queued until just before its callback. */
    private static void fire(WaitEntry fired) {
        while (fired != null) {
            WaitEntry next = fired.nextFired;
            fired.nextFired = null;
            fired.queuedOn = null; // volatile: a callback may re-register the entry
            fired.wake();
            fired = next;
        }
    }

    /**
     * {@code sbitmap_prepare_to_wait}: links an exclusive sleeper of the calling
     * thread at the tail of queue {@code queue}.
     */
    void prepareToWait(int queue, Sleeper sleeper) {
        sleeper.thread = Thread.currentThread();
        sleeper.queue = queue;
        sleeper.woken = false; // volatile write, before the link below (the waker reads it after unlinking)
        sleeper.consumed = false;
        // Volatile RMW: pairs with the volatile ws_active read in wakeUp(); the caller re-reads the
        // bitmap after this, so either it sees the free or the freer sees this waiter.
        CTR.getAndAdd(ctr, WS_ACTIVE, 1);
        Queue q = ws[queue];
        q.lock.lock();
        try {
            q.waiters.addLast(sleeper);
            q.count = q.waiters.size();
        } finally {
            q.lock.unlock();
        }
    }

    /**
     * {@code sbitmap_finish_wait}: unlinks the sleeper if still linked. If a waker
     * already took it off the queue and its owner did not take that wake-up from
     * {@link Sleeper#await} (it got a bit on its own, timed out or was
     * interrupted), the wake-up was meant for somebody: it is passed on to the next
     * exclusive waiter. After a wake-up the owner did take, this does nothing.
     */
    void finishWait(Sleeper sleeper) {
        if (sleeper.consumed) {
            return; // await() saw woken, which the waker set after unlinking (list_empty_careful)
        }
        Queue q = ws[sleeper.queue];
        boolean removed;
        q.lock.lock();
        try {
            removed = q.waiters.remove(sleeper);
            if (removed) {
                q.count = q.waiters.size();
                CTR.getAndAdd(ctr, WS_ACTIVE, -1);
            }
        } finally {
            q.lock.unlock();
        }
        // A waker sets woken under the queue lock, so a sleeper not found here and not woken was never linked.
        if (!removed && sleeper.woken) {
            wakeNr(1, 0);
        }
    }

    /**
     * Passes on a wake-up that {@code sleeper} took but could not use: wakes the
     * next exclusive waiter (and the callbacks met on the way), unless the wake-up
     * came from {@link #wakeAll} or has travelled {@code ws_active + 8} hops already,
     * so waiters that all fail a check of their own cannot hand one wake-up round
     * forever. Returns whether it was passed on.
     */
    boolean passWakeOn(Sleeper sleeper) {
        if (!sleeper.consumed) {
            throw new IllegalStateException("only a wake-up taken from Sleeper.await() can be passed on");
        }
        int hops = sleeper.hops;
        if (hops == Sleeper.NO_PASS || hops >= wsActive() + SbitmapQueue.WAIT_QUEUES) {
            return false;
        }
        sleeper.hops = Sleeper.NO_PASS; // passed once: a second call declines
        wakeNr(1, hops + 1);
        return true;
    }

    /** {@code sbitmap_add_wait_queue}: links a non-exclusive callback entry. */
    boolean addWaitQueue(WaitEntry entry, int queue) {
        Queue q = ws[queue];
        q.lock.lock();
        try {
            // CAS under the queue lock: remove() sees queuedOn and the link change together.
            if (!QUEUED_ON.compareAndSet(entry, (Object) null, (Object) q)) {
                return false;
            }
            // Volatile RMW: same handshake as prepareToWait(); the caller re-tries after this.
            CTR.getAndAdd(ctr, WS_ACTIVE, 1);
            // Non-exclusive entries go to the head (add_wait_queue), exclusive sleepers to the tail,
            // so a wake-up of any size fires every callback of the queues it visits.
            q.waiters.addFirst(entry);
            q.count = q.waiters.size();
            return true;
        } finally {
            q.lock.unlock();
        }
    }

    /** {@code sbitmap_del_wait_queue}: unlinks a callback entry that has not fired. */
    boolean removeWaitQueue(WaitEntry entry) {
        for (;;) {
            Object on = entry.queuedOn;
            if (!(on instanceof Queue q)) {
                return false;
            }
            q.lock.lock();
            try {
                if (entry.queuedOn != on) {
                    continue; // fired and re-queued elsewhere meanwhile: look again
                }
                if (!q.waiters.remove(entry)) {
                    return false; // taken by a waker; its callback is about to run
                }
                q.count = q.waiters.size();
                CTR.getAndAdd(ctr, WS_ACTIVE, -1);
                entry.queuedOn = null;
                return true;
            } finally {
                q.lock.unlock();
            }
        }
    }
}
