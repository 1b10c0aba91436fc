package io.hostwide.sbitmap;

/**
 * A fixed-capacity allocator of small integers ("bits", "tags") with waiting,
 * after Linux's {@code sbitmap_queue} (digest §1). Two implementations share this
 * contract and one test suite: {@link ShardedSbitmapQueue}, the scalable one, and
 * {@link LockedSbitmapQueue}, a trivially correct reference.
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
 * Whole-map semantics (recent kernels): {@code getShallow(h, s)} succeeds only
 * with a bit below {@code s} spread over words in proportion to their size; see the
 * implementation for the exact rule. Every shallow depth must be at least
 * {@link #minShallowDepth()}.
 *
 * <h2>Waiting</h2>
 * Eight wait queues; callers rotate over them with their own {@link WaitIndex}.
 * Sleeping allocators are exclusive waiters ({@link #getBlocking}); dispatch
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

    /** As {@link #get} but only within {@code shallowDepth} (whole-map semantics). */
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
     * Changes the usable depth within {@link #capacity()}, folding deferred clears
     * first; recomputes the wake batch and wakes everyone if it shrank.
     */
    void resize(int depth);

    /** Declares the smallest shallow depth that will be used ({@code sbitmap_queue_min_shallow_depth}). */
    void setMinShallowDepth(int minShallowDepth);

    int minShallowDepth();

    /** clamp(ceil(depth/users)/8, 1, 8), for tag sets whose active-queue count changed. */
    void recalculateWakeBatch(int users);

    int wakeBatch();

    /** Wakes every waiter on every queue (resize, a sharer going idle, teardown). */
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
