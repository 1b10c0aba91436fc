package io.hostwide.sbitmap;

/**
 * A fixed-capacity allocator of small integers ("bits", "tags") with waiting,
 * after Linux's {@code sbitmap_queue} (digest §1), implemented by
 * {@link ShardedSbitmapQueue}. Its contract suite also runs against a synchronized
 * bitset in test scope, a reference that shares none of its code.
 *
 * <h2>Hints</h2>
 * The kernel keeps one allocation hint per CPU. Here a queue is created with
 * {@code nrHints} hint slots and every caller passes the slot it owns (a blk
 * software queue passes its ctx index); slots are never shared between threads
 * that allocate concurrently, but a completion on another thread may pass the
 * submitter's slot to {@link #clear} (the kernel sets the hint of the CPU that
 * frees, which is a benign race there too).
 *
 * <h2>Shallow depth</h2>
 * Whole-map semantics (recent kernels, digest §1.5): the budget {@code s} of
 * {@code getShallow(h, s)} is spread over the words in proportion to their size,
 * word {@code i} lending its first floor(end·s/depth) − floor(start·s/depth) bits
 * ({@link SbitmapMath#shallowWordDepth}), so shallow allocations alone can hold at
 * most min(s, depth) bits. Every shallow depth must be at least
 * {@link #minShallowDepth()}, which starts "undeclared" at
 * {@link Integer#MAX_VALUE} (the kernel's UINT_MAX): declare it with
 * {@link #setMinShallowDepth} before the first {@code getShallow}, or that call
 * throws {@link IllegalArgumentException}.
 *
 * <h2>Errors</h2>
 * A hint slot outside [0, nrHints) or a bit outside [0, capacity) throws
 * {@link IndexOutOfBoundsException}; freeing a bit that is not allocated (or
 * freeing it twice) throws {@link IllegalStateException} and changes nothing.
 * A get can fail while bits are free only in round-robin mode (bits below the
 * hint in its first word are not searched, as in the kernel) or in a race with
 * concurrent frees; waiters are never stranded by it, since they re-try after
 * registering.
 *
 * <h2>Waiting</h2>
 * Eight wait queues; callers rotate over them with their own {@link WaitIndex}.
 * Sleeping allocators are exclusive waiters ({@link #getBlocking}, or a loop of
 * their own over {@link #prepareToWait} / {@link #finishWait}); dispatch
 * re-runs register non-exclusive {@link WaitEntry} callbacks
 * ({@link #addWaitQueue}). Wake-ups are batched: roughly {@link #wakeBatch()}
 * waiters per {@code wakeBatch} frees, rotating across the queues.
 */
public interface SbitmapQueue {

    /** Number of wait queues, {@code SBQ_WAIT_QUEUES}. */
    int WAIT_QUEUES = 8;
    /** Upper bound of the wake batch, {@code SBQ_WAKE_BATCH}. */
    int WAKE_BATCH = 8;

    /** Usable bits now (≤ {@link #capacity()}). */
    int depth();

    /** Bits allocated at construction; {@link #resize} never goes above it. */
    int capacity();

    /** Claims a free bit, or returns -1. Never blocks. */
    int get(int hint);

    /**
     * As {@link #get} but only within {@code shallowDepth} (whole-map semantics).
     *
     * @throws IllegalArgumentException if {@code shallowDepth} is below {@link #minShallowDepth()}
     */
    int getShallow(int hint, int shallowDepth);

    /**
     * Claims up to {@code nr} free bits from a single word with one atomic step
     * ({@code __sbitmap_queue_get_batch}); writes them to {@code out} and returns
     * how many (0 when none). Not used in round-robin mode (returns 0 there).
     */
    int getBatch(int nr, int hint, int[] out);

    /** Frees {@code bit} (deferred clear) and runs wake-up processing; sets {@code hint}'s slot to it. */
    void clear(int bit, int hint);

    /** Frees {@code n} bits of {@code bits} with one atomic per word, then wakes for the total. */
    void clearBatch(int[] bits, int n);

    /** Bits held now: popcount(word) − popcount(cleared) over all words. */
    int busy();

    /**
     * Visits the held bits below the depth in ascending order from {@code start},
     * wrapping once round the map ({@code sbitmap_for_each_set}, used by blk-mq's
     * busy-tag iteration); stops when {@code visitor} returns false. Bits taken or
     * freed during the walk may or may not be seen.
     */
    void forEachSet(int start, java.util.function.IntPredicate visitor);

    /**
     * Changes the usable depth within {@link #capacity()}, folding deferred clears
     * first; recomputes the wake batch and wakes everyone if it shrank or if the
     * depth grew (new free bits). Bits held above a shrunk depth stay valid to
     * {@link #clear}; the word size never changes.
     *
     * @throws IllegalArgumentException if {@code depth} is outside [0, capacity]
     */
    void resize(int depth);

    /**
     * Declares the smallest shallow depth that will be used
     * ({@code sbitmap_queue_min_shallow_depth}, ≥ 1); recomputes the wake batch and
     * wakes everyone if it shrank.
     */
    void setMinShallowDepth(int minShallowDepth);

    int minShallowDepth();

    /**
     * Sets the wake batch to clamp(ceil(depth/users)/8, 1, 8), for tag sets whose
     * active-queue count changed, then wakes any batch the frees already counted
     * now complete. {@code users} ≥ 1.
     */
    void recalculateWakeBatch(int users);

    int wakeBatch();

    /**
     * Wakes every waiter on every queue (resize, a sharer going idle, teardown).
     * Unlike the kernel's wake_up per queue, every exclusive sleeper is woken.
     */
    void wakeAll();

    /**
     * Blocks until a bit is free and claims it. Registers as an exclusive waiter on
     * the queue chosen by {@code waitIndex} and re-tries after registering and before
     * sleeping, so no wake-up is lost.
     */
    int getBlocking(int hint, WaitIndex waitIndex) throws InterruptedException;

    /** As {@link #getBlocking(int, WaitIndex)} with a limit; returns -1 on timeout. */
    int getBlocking(int hint, WaitIndex waitIndex, long timeoutNanos) throws InterruptedException;

    /**
     * {@code sbitmap_prepare_to_wait}: links {@code sleeper} as an exclusive waiter of the calling thread
     * at the tail of the queue chosen by {@code waitIndex}, counted in {@code ws_active}. For callers that
     * run their own wait loop (blk-mq's {@code blk_mq_get_tag}, whose retry includes checks of its own):
     * after this the caller must re-try the allocation before {@link Sleeper#await} (so no wake-up is lost),
     * and leave with {@link #finishWait} unless it was woken. A sleeper is linked on at most one queue.
     */
    void prepareToWait(Sleeper sleeper, WaitIndex waitIndex);

    /**
     * {@code sbitmap_finish_wait}: unlinks {@code sleeper} if it is still linked. If a waker had already
     * taken it off its queue but {@link Sleeper#await} did not return that wake-up (the caller got a bit
     * right after {@link #prepareToWait}, or was interrupted), the wake-up is passed on to the next exclusive
     * waiter, so it is not lost. After a wake-up {@code await} returned, it does nothing.
     */
    void finishWait(Sleeper sleeper);

    /**
     * Hands a wake-up the caller took from {@link Sleeper#await} but cannot use (a check of its own failed,
     * such as blk-mq's fair share, while bits are free) to the next exclusive waiter, firing the callbacks met
     * on the way. Declines (returns false) for a wake-up from {@link #wakeAll}, one already passed on by this
     * sleeper, and one that has been passed on {@code ws_active + WAIT_QUEUES} times already, so waiters that
     * all fail their own check cannot circulate a wake-up forever.
     *
     * @throws IllegalStateException if {@code await} has not returned a wake-up since the last prepare
     */
    boolean passWakeOn(Sleeper sleeper);

    /**
     * Registers a non-exclusive callback waiter ({@code sbitmap_add_wait_queue}).
     * The entry is counted in {@code ws_active} until it fires or is removed. A
     * fired entry is removed before its callback runs. Returns false if the entry
     * was already queued.
     */
    boolean addWaitQueue(WaitEntry entry, WaitIndex waitIndex);

    /** Removes a queued callback waiter; returns false if it was not queued (it fired already). */
    boolean removeWaitQueue(WaitEntry entry);

    /** The debugfs view (digest §1.10). */
    SbitmapDump dump();
}
