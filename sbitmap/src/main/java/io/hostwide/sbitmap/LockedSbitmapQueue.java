package io.hostwide.sbitmap;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The trivially correct reference {@link SbitmapQueue}: one lock around plain
 * state. Frees are immediate (no deferred {@code cleared} mask), but hints,
 * round-robin, whole-map shallow depth, wake batching over eight queues and the
 * waiting protocol follow the same rules as {@link ShardedSbitmapQueue}, so both
 * run the same contract tests. Not for hot paths: every operation takes the lock.
 */
public final class LockedSbitmapQueue implements SbitmapQueue {

    private final ReentrantLock lock = new ReentrantLock();
    private final int capacity;
    private final int shift;
    private final boolean roundRobin;
    private final long[] words;
    private final int[] hints;
    @SuppressWarnings({"unchecked", "rawtypes"})
    private final ArrayDeque<Object>[] ws = new ArrayDeque[WAIT_QUEUES];

    // All guarded by lock.
    private int depth;
    private int mapNr;
    private int minShallowDepth = Integer.MAX_VALUE;
    private int wakeBatch;
    private int wakeIndex;
    private int wsActive;
    private int completionCnt;
    private int wakeupCnt;

    public LockedSbitmapQueue(SbitmapConfig config) {
        this.capacity = config.capacity();
        this.shift = SbitmapMath.effectiveShift(config.shift(), config.depth());
        this.roundRobin = config.roundRobin();
        this.words = new long[SbitmapMath.mapNr(capacity, shift)];
        this.hints = new int[config.nrHints()];
        this.depth = config.depth();
        this.mapNr = SbitmapMath.mapNr(depth, shift);
        this.wakeBatch = SbitmapMath.wakeBatch(depth, minShallowDepth);
        for (int i = 0; i < hints.length; i++) {
            hints[i] = SbitmapMath.randomHint(i, depth, shift);
        }
        for (int i = 0; i < WAIT_QUEUES; i++) {
            ws[i] = new ArrayDeque<>();
        }
    }

    @Override
    public int depth() {
        lock.lock();
        try {
            return depth;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public int get(int hint) {
        Objects.checkIndex(hint, hints.length);
        lock.lock();
        try {
            return getLocked(hint, Integer.MAX_VALUE);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int getShallow(int hint, int shallowDepth) {
        Objects.checkIndex(hint, hints.length);
        lock.lock();
        try {
            SbitmapMath.checkShallow(shallowDepth, minShallowDepth);
            return getLocked(hint, shallowDepth);
        } finally {
            lock.unlock();
        }
    }

    /** The word walk of digest §1.3 over plain words. */
    private int getLocked(int slot, int shallowDepth) {
        if (depth == 0) {
            hints[slot] = 0;
            return -1;
        }
        int hint = hints[slot];
        if (hint >= depth) {
            hint = SbitmapMath.randomHint(slot, depth, shift);
        }
        int index = hint >>> shift;
        int offset = roundRobin ? hint & ((1 << shift) - 1) : 0;
        int nr = -1;
        for (int i = 0; i < mapNr; i++) {
            int usable = SbitmapMath.shallowWordDepth(depth, shift, index, shallowDepth);
            long free = ~words[index] & SbitmapMath.lowMask(usable) & ~SbitmapMath.lowMask(offset);
            if (free != 0) {
                int bit = Long.numberOfTrailingZeros(free);
                words[index] |= 1L << bit;
                nr = (index << shift) + bit;
                break;
            }
            offset = 0;
            index = index + 1 == mapNr ? 0 : index + 1;
        }
        hints[slot] = SbitmapMath.hintAfterGet(hint, nr, depth, roundRobin);
        return nr;
    }

    @Override
    public int getBatch(int nr, int hint, int[] out) {
        Objects.checkIndex(hint, hints.length);
        if (nr < 0 || nr > out.length) {
            throw new IllegalArgumentException("nr " + nr + " outside 0.." + out.length);
        }
        if (roundRobin || nr == 0) {
            return 0;
        }
        lock.lock();
        try {
            if (depth == 0) {
                return 0;
            }
            int h = hints[hint] >= depth ? SbitmapMath.randomHint(hint, depth, shift) : hints[hint];
            int index = h >>> shift;
            for (int i = 0; i < mapNr; i++) {
                long free = ~words[index] & SbitmapMath.lowMask(SbitmapMath.wordDepth(depth, shift, index));
                if (free != 0) {
                    int n = 0;
                    while (free != 0 && n < nr) {
                        long low = Long.lowestOneBit(free);
                        free &= ~low;
                        words[index] |= low;
                        out[n++] = (index << shift) + Long.numberOfTrailingZeros(low);
                    }
                    hints[hint] = SbitmapMath.hintAfterGet(h, out[0], depth, false);
                    return n;
                }
                index = index + 1 == mapNr ? 0 : index + 1;
            }
            hints[hint] = 0;
            return 0;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void clear(int bit, int hint) {
        Objects.checkIndex(bit, capacity);
        Objects.checkIndex(hint, hints.length);
        WaitEntry fired;
        lock.lock();
        try {
            freeLocked(bit);
            if (!roundRobin && bit < depth) {
                hints[hint] = bit;
            }
            fired = wakeUpLocked(1);
        } finally {
            lock.unlock();
        }
        fire(fired);
    }

    private void freeLocked(int bit) {
        long mask = 1L << (bit & ((1 << shift) - 1));
        int index = bit >>> shift;
        if ((words[index] & mask) == 0) {
            throw new IllegalStateException("bit " + bit + " is not allocated");
        }
        words[index] &= ~mask;
    }

    @Override
    public void clearBatch(int[] bits, int n) {
        if (n < 0 || n > bits.length) {
            throw new IllegalArgumentException("n " + n + " outside 0.." + bits.length);
        }
        for (int i = 0; i < n; i++) {
            Objects.checkIndex(bits[i], capacity);
        }
        WaitEntry fired;
        lock.lock();
        try {
            for (int i = 0; i < n; i++) {
                int index = bits[i] >>> shift;
                if ((words[index] & (1L << (bits[i] & ((1 << shift) - 1)))) == 0) {
                    throw new IllegalStateException("bit " + bits[i] + " is not allocated");
                }
            }
            for (int i = 0; i < n; i++) {
                freeLocked(bits[i]);
            }
            fired = wakeUpLocked(n);
        } finally {
            lock.unlock();
        }
        fire(fired);
    }

    @Override
    public int busy() {
        lock.lock();
        try {
            int busy = 0;
            for (long w : words) {
                busy += Long.bitCount(w);
            }
            return busy;
        } finally {
            lock.unlock();
        }
    }

    /** Snapshots the held bits under the lock, then visits them without it (the visitor may call back in). */
    @Override
    public void forEachSet(int start, java.util.function.IntPredicate visitor) {
        int[] held;
        int n = 0;
        lock.lock();
        try {
            held = new int[depth];
            int first = start >= depth || start < 0 ? 0 : start;
            for (int k = 0; k < depth; k++) {
                int bit = (first + k) % depth;
                if ((words[bit >>> shift] & (1L << (bit & ((1 << shift) - 1)))) != 0) {
                    held[n++] = bit;
                }
            }
        } finally {
            lock.unlock();
        }
        for (int i = 0; i < n; i++) {
            if (!visitor.test(held[i])) {
                return;
            }
        }
    }

    @Override
    public void resize(int newDepth) {
        if (newDepth < 0 || newDepth > capacity) {
            throw new IllegalArgumentException("depth " + newDepth + " outside 0.." + capacity);
        }
        WaitEntry fired;
        lock.lock();
        try {
            boolean grew = newDepth > depth;
            depth = newDepth;
            mapNr = SbitmapMath.mapNr(newDepth, shift);
            int old = wakeBatch;
            wakeBatch = SbitmapMath.wakeBatch(newDepth, minShallowDepth);
            fired = (wakeBatch < old || grew) ? wakeAllLocked() : null;
        } finally {
            lock.unlock();
        }
        fire(fired);
    }

    @Override
    public void setMinShallowDepth(int minShallow) {
        if (minShallow < 1) {
            throw new IllegalArgumentException("min_shallow_depth must be >= 1, got " + minShallow);
        }
        WaitEntry fired;
        lock.lock();
        try {
            minShallowDepth = minShallow;
            int old = wakeBatch;
            wakeBatch = SbitmapMath.wakeBatch(depth, minShallow);
            fired = wakeBatch < old ? wakeAllLocked() : null;
        } finally {
            lock.unlock();
        }
        fire(fired);
    }

    @Override
    public int minShallowDepth() {
        lock.lock();
        try {
            return minShallowDepth;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void recalculateWakeBatch(int users) {
        WaitEntry fired;
        lock.lock();
        try {
            wakeBatch = SbitmapMath.wakeBatchForUsers(depth, users);
            fired = wakeUpLocked(0); // completions already pending may form a batch now
        } finally {
            lock.unlock();
        }
        fire(fired);
    }

    @Override
    public int wakeBatch() {
        lock.lock();
        try {
            return wakeBatch;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void wakeAll() {
        WaitEntry fired;
        lock.lock();
        try {
            fired = wakeAllLocked();
        } finally {
            lock.unlock();
        }
        fire(fired);
    }

    /** Wake batching of digest §1.6; returns the callback entries to fire after unlocking. */
    private WaitEntry wakeUpLocked(int nr) {
        if (wsActive == 0) {
            return null;
        }
        completionCnt += nr;
        WaitEntry fired = null;
        while (completionCnt - wakeupCnt >= wakeBatch) {
            wakeupCnt += wakeBatch;
            fired = wakeNrLocked(wakeBatch, fired, 0);
        }
        return fired;
    }

    /**
     * Wakes up to {@code nr} exclusive waiters and every callback met, advancing wake_index before each queue;
     * {@code hops} is how often this wake-up was passed on already.
     */
    private WaitEntry wakeNrLocked(int nr, WaitEntry fired, int hops) {
        int index = wakeIndex;
        for (int i = 0; i < WAIT_QUEUES && nr > 0; i++) {
            ArrayDeque<Object> q = ws[index];
            index = (index + 1) & (WAIT_QUEUES - 1);
            int size = q.size();
            for (int k = 0; k < size && nr > 0; k++) {
                Object w = q.pollFirst();
                if (w instanceof WaitEntry e) {
                    wsActive--;
                    e.nextFired = fired;
                    fired = e;
                } else if (w instanceof Sleeper s) {
                    wsActive--;
                    s.wake(hops);
                    nr--;
                }
            }
        }
        wakeIndex = index;
        return fired;
    }

    private WaitEntry wakeAllLocked() {
        WaitEntry fired = null;
        for (ArrayDeque<Object> q : ws) {
            Object w;
            while ((w = q.pollFirst()) != null) {
                wsActive--;
                if (w instanceof WaitEntry e) {
                    e.nextFired = fired;
                    fired = e;
                } else {
                    ((Sleeper) w).wake(Sleeper.NO_PASS);
                }
            }
        }
        return fired;
    }

    /** Runs callbacks outside the lock; an entry counts as queued until just before its callback. */
    private static void fire(WaitEntry fired) {
        while (fired != null) {
            WaitEntry next = fired.nextFired;
            fired.nextFired = null;
            fired.queuedOn = null;
            fired.wake();
            fired = next;
        }
    }

    @Override
    public int getBlocking(int hint, WaitIndex waitIndex) throws InterruptedException {
        return getBlocking(hint, waitIndex, -1L, false);
    }

    @Override
    public int getBlocking(int hint, WaitIndex waitIndex, long timeoutNanos) throws InterruptedException {
        return getBlocking(hint, waitIndex, timeoutNanos, true);
    }

    private int getBlocking(int hint, WaitIndex waitIndex, long timeoutNanos, boolean timed)
            throws InterruptedException {
        Objects.requireNonNull(waitIndex, "waitIndex");
        int bit = get(hint);
        if (bit >= 0 || (timed && timeoutNanos <= 0)) {
            return bit;
        }
        long deadline = timed ? System.nanoTime() + timeoutNanos : 0L;
        Sleeper me = new Sleeper(Thread.currentThread());
        for (;;) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            int queue = waitIndex.nextQueue();
            lock.lock();
            try {
                bit = getLocked(hint, Integer.MAX_VALUE);
                if (bit >= 0) {
                    return bit;
                }
                linkLocked(queue, me);
            } finally {
                lock.unlock();
            }
            if (!me.await(timed, deadline)) {
                finishWait(me);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                return -1;
            }
            bit = get(hint);
            if (bit >= 0) {
                return bit;
            }
            if (timed && deadline - System.nanoTime() <= 0) {
                return -1;
            }
        }
    }

    private void linkLocked(int queue, Sleeper me) {
        me.thread = Thread.currentThread();
        me.queue = queue;
        me.woken = false;
        me.consumed = false;
        ws[queue].addLast(me);
        wsActive++;
    }

    @Override
    public void prepareToWait(Sleeper sleeper, WaitIndex waitIndex) {
        Objects.requireNonNull(sleeper, "sleeper");
        Objects.requireNonNull(waitIndex, "waitIndex");
        int queue = waitIndex.nextQueue();
        lock.lock();
        try {
            linkLocked(queue, sleeper);
        } finally {
            lock.unlock();
        }
    }

    /** Leaves the queue; a wake-up that raced in and was not taken from await() is passed on. */
    @Override
    public void finishWait(Sleeper sleeper) {
        Objects.requireNonNull(sleeper, "sleeper");
        if (sleeper.consumed) {
            return; // the waker unlinked it before setting woken, which await() saw
        }
        WaitEntry fired = null;
        lock.lock();
        try {
            if (ws[sleeper.queue].remove(sleeper)) {
                wsActive--;
            } else if (sleeper.woken) { // not linked and not woken: never prepared, nothing to pass on
                fired = wakeNrLocked(1, null, 0);
            }
        } finally {
            lock.unlock();
        }
        fire(fired);
    }

    @Override
    public boolean passWakeOn(Sleeper sleeper) {
        Objects.requireNonNull(sleeper, "sleeper");
        if (!sleeper.consumed) {
            throw new IllegalStateException("only a wake-up taken from Sleeper.await() can be passed on");
        }
        WaitEntry fired;
        lock.lock();
        try {
            int hops = sleeper.hops;
            if (hops == Sleeper.NO_PASS || hops >= wsActive + WAIT_QUEUES) {
                return false;
            }
            sleeper.hops = Sleeper.NO_PASS;
            fired = wakeNrLocked(1, null, hops + 1);
        } finally {
            lock.unlock();
        }
        fire(fired);
        return true;
    }

    @Override
    public boolean addWaitQueue(WaitEntry entry, WaitIndex waitIndex) {
        Objects.requireNonNull(entry, "entry");
        Objects.requireNonNull(waitIndex, "waitIndex");
        lock.lock();
        try {
            if (entry.queuedOn != null) {
                return false;
            }
            ArrayDeque<Object> q = ws[waitIndex.nextQueue()];
            entry.queuedOn = q;
            q.addFirst(entry); // non-exclusive entries go to the head, as add_wait_queue does
            wsActive++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean removeWaitQueue(WaitEntry entry) {
        Objects.requireNonNull(entry, "entry");
        lock.lock();
        try {
            Object on = entry.queuedOn;
            for (ArrayDeque<Object> q : ws) {
                if (q == on && q.remove(entry)) {
                    wsActive--;
                    entry.queuedOn = null;
                    return true;
                }
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public SbitmapDump dump() {
        lock.lock();
        try {
            int busy = 0;
            for (long w : words) {
                busy += Long.bitCount(w);
            }
            List<Integer> hintList = new ArrayList<>(hints.length);
            for (int h : hints) {
                hintList.add(h);
            }
            List<Integer> wsList = new ArrayList<>(WAIT_QUEUES);
            for (ArrayDeque<Object> q : ws) {
                wsList.add(q.size());
            }
            return new SbitmapDump(depth, busy, 0, 1 << shift, mapNr, List.copyOf(hintList), wakeBatch,
                    wakeIndex, wsActive, List.copyOf(wsList), roundRobin, minShallowDepth);
        } finally {
            lock.unlock();
        }
    }
}
