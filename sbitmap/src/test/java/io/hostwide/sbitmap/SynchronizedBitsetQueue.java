package io.hostwide.sbitmap;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * The reference {@link SbitmapQueue} the contract suite holds {@link ShardedSbitmapQueue} against: a
 * {@link BitSet} and one FIFO list of waiters behind {@code synchronized}, sharing no code with the real one.
 * Nothing clever, so nothing to get wrong:
 * <ul>
 *   <li>get takes the lowest free bit below the depth; a shallow get the lowest below min(shallow, depth);
 *       hints are only range-checked; round-robin only turns batch gets off;</li>
 *   <li>a free is immediate and wakes the first sleeper and fires every callback waiting (a wake batch of 1,
 *       never fewer wake-ups than the real one's batching); wakeAll and resize wake everyone;</li>
 *   <li>the dump reports one word and one wait queue.</li>
 * </ul>
 * What it does not model (word layout, hints, round-robin order, wake batches, the eight queues) is tested on
 * the real one alone, in {@link ShardedSbitmapQueueTest}.
 */
final class SynchronizedBitsetQueue implements SbitmapQueue {

    private final int capacity;
    private final int nrHints;
    private final boolean roundRobin;
    private final BitSet held = new BitSet();
    /** Sleepers and callback entries in the order they registered; guarded by this. */
    private final List<Object> waiters = new ArrayList<>();
    private int depth;
    private int minShallowDepth = Integer.MAX_VALUE;

    SynchronizedBitsetQueue(SbitmapConfig config) {
        this.capacity = config.capacity();
        this.nrHints = config.nrHints();
        this.roundRobin = config.roundRobin();
        this.depth = config.depth();
    }

    @Override
    public synchronized int depth() {
        return depth;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public synchronized int get(int hint) {
        Objects.checkIndex(hint, nrHints);
        return take(depth);
    }

    @Override
    public synchronized int getShallow(int hint, int shallowDepth) {
        Objects.checkIndex(hint, nrHints);
        if (shallowDepth < minShallowDepth) {
            throw new IllegalArgumentException("shallow depth " + shallowDepth + " below " + minShallowDepth);
        }
        return take(Math.min(shallowDepth, depth));
    }

    private int take(int below) {
        int bit = held.nextClearBit(0);
        if (bit >= below) {
            return -1;
        }
        held.set(bit);
        return bit;
    }

    @Override
    public synchronized int getBatch(int nr, int hint, int[] out) {
        Objects.checkIndex(hint, nrHints);
        if (nr < 1 || nr > out.length) {
            throw new IllegalArgumentException("nr " + nr + " for " + out.length + " slots");
        }
        int n = 0;
        while (!roundRobin && n < nr && (out[n] = take(depth)) >= 0) {
            n++;
        }
        return n;
    }

    @Override
    public void clear(int bit, int hint) {
        Objects.checkIndex(hint, nrHints);
        clearBatch(new int[] {bit}, 1);
    }

    @Override
    public void clearBatch(int[] bits, int n) {
        if (n < 0 || n > bits.length) {
            throw new IllegalArgumentException("n " + n + " for " + bits.length + " bits");
        }
        List<WaitEntry> fire;
        synchronized (this) {
            BitSet freeing = new BitSet();
            for (int i = 0; i < n; i++) {
                Objects.checkIndex(bits[i], capacity);
                if (!held.get(bits[i]) || freeing.get(bits[i])) {
                    throw new IllegalStateException("bit " + bits[i] + " is not allocated");
                }
                freeing.set(bits[i]);
            }
            held.andNot(freeing);
            fire = wake(n, 0);
        }
        fire.forEach(WaitEntry::wake);
    }

    /**
     * Wakes up to {@code sleepers} sleepers from the front and takes every callback entry off, returning those
     * to fire once the lock is let go (a callback may call back in).
     */
    private List<WaitEntry> wake(int sleepers, int hops) {
        if (waiters.isEmpty()) {
            return List.of();
        }
        List<WaitEntry> fire = new ArrayList<>();
        List<Object> staying = new ArrayList<>();
        for (Object w : waiters) {
            if (w instanceof WaitEntry e) {
                e.queuedOn = null;   // off the queue before its callback runs
                fire.add(e);
            } else if (sleepers > 0) {
                ((Sleeper) w).wake(hops);
                sleepers--;
            } else {
                staying.add(w);
            }
        }
        waiters.clear();
        waiters.addAll(staying);
        return fire;
    }

    @Override
    public synchronized int busy() {
        return held.cardinality();
    }

    @Override
    public void forEachSet(int start, IntPredicate visitor) {
        BitSet snapshot;
        int d;
        synchronized (this) {
            snapshot = (BitSet) held.clone();
            d = depth;
        }
        for (int i = 0; i < d; i++) {
            int bit = (start + i) % d;
            if (snapshot.get(bit) && !visitor.test(bit)) {
                return;
            }
        }
    }

    @Override
    public void resize(int newDepth) {
        if (newDepth < 0 || newDepth > capacity) {
            throw new IllegalArgumentException("depth " + newDepth + " outside [0, " + capacity + "]");
        }
        synchronized (this) {
            depth = newDepth;
        }
        wakeAll();
    }

    @Override
    public synchronized void setMinShallowDepth(int min) {
        if (min < 1) {
            throw new IllegalArgumentException("min shallow depth " + min);
        }
        minShallowDepth = min;
    }

    @Override
    public synchronized int minShallowDepth() {
        return minShallowDepth;
    }

    @Override
    public void recalculateWakeBatch(int users) {
        if (users < 1) {
            throw new IllegalArgumentException("users " + users);
        }
        // Nothing to recalculate: every free already wakes.
    }

    @Override
    public int wakeBatch() {
        return 1;
    }

    @Override
    public void wakeAll() {
        List<WaitEntry> fire;
        synchronized (this) {
            fire = wake(Integer.MAX_VALUE, Sleeper.NO_PASS);
        }
        fire.forEach(WaitEntry::wake);
    }

    @Override
    public int getBlocking(int hint, WaitIndex waitIndex) throws InterruptedException {
        return getBlocking(hint, waitIndex, Long.MAX_VALUE);
    }

    @Override
    public int getBlocking(int hint, WaitIndex waitIndex, long timeoutNanos) throws InterruptedException {
        Objects.requireNonNull(waitIndex, "waitIndex");
        long deadline = timeoutNanos == Long.MAX_VALUE ? 0 : System.nanoTime() + timeoutNanos;
        Sleeper me = new Sleeper();
        for (;;) {
            int bit = get(hint);
            if (bit >= 0) {
                return bit;
            }
            prepareToWait(me, waitIndex);
            bit = get(hint);   // a free between the try above and the link would have found no one
            boolean woken = bit < 0 && me.await(timeoutNanos != Long.MAX_VALUE, deadline);
            finishWait(me);
            if (bit >= 0) {
                return bit;
            }
            if (!woken) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                return -1;   // timed out
            }
        }
    }

    @Override
    public synchronized void prepareToWait(Sleeper sleeper, WaitIndex waitIndex) {
        Objects.requireNonNull(sleeper, "sleeper");
        Objects.requireNonNull(waitIndex, "waitIndex");
        sleeper.woken = false;
        sleeper.consumed = false;
        if (!waiters.contains(sleeper)) {
            waiters.add(sleeper);
        }
    }

    @Override
    public void finishWait(Sleeper sleeper) {
        Objects.requireNonNull(sleeper, "sleeper");
        List<WaitEntry> fire = List.of();
        synchronized (this) {
            // Woken (and so unlinked) but the wake-up not taken from await: hand it to the next sleeper.
            if (!waiters.remove(sleeper) && sleeper.woken && !sleeper.consumed) {
                fire = wake(1, 0);
            }
        }
        fire.forEach(WaitEntry::wake);
    }

    @Override
    public boolean passWakeOn(Sleeper sleeper) {
        Objects.requireNonNull(sleeper, "sleeper");
        if (!sleeper.consumed) {
            throw new IllegalStateException("no wake-up taken from await() to pass on");
        }
        List<WaitEntry> fire;
        synchronized (this) {
            int hops = sleeper.hops;
            if (hops == Sleeper.NO_PASS || hops >= waiters.size() + WAIT_QUEUES) {
                return false;
            }
            sleeper.hops = Sleeper.NO_PASS;
            fire = wake(1, hops + 1);
        }
        fire.forEach(WaitEntry::wake);
        return true;
    }

    @Override
    public synchronized boolean addWaitQueue(WaitEntry entry, WaitIndex waitIndex) {
        Objects.requireNonNull(entry, "entry");
        Objects.requireNonNull(waitIndex, "waitIndex");
        if (entry.queuedOn != null) {
            return false;
        }
        entry.queuedOn = this;
        waiters.add(entry);
        return true;
    }

    @Override
    public synchronized boolean removeWaitQueue(WaitEntry entry) {
        if (!waiters.remove(entry)) {
            return false;
        }
        entry.queuedOn = null;
        return true;
    }

    @Override
    public synchronized SbitmapDump dump() {
        List<Integer> ws = new ArrayList<>(Collections.nCopies(WAIT_QUEUES, 0));
        ws.set(0, waiters.size());
        return new SbitmapDump(depth, held.cardinality(), 0, Math.max(1, capacity), 1,
                Collections.nCopies(nrHints, 0), 1, 0, waiters.size(), ws, roundRobin, minShallowDepth);
    }
}
