package io.hostwide.cli.util;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A bounded multi-producer single-consumer queue of ints (completed slot numbers),
 * after Vyukov's bounded queue: each cell carries a sequence number, so producers
 * claim a position with one CAS and publish with a release store that the
 * consumer's acquire load pairs with. Never holds more than its capacity because
 * a job has at most {@code iodepth} I/Os in flight.
 *
 * <p>Not linearizable, by design: {@link #poll} answers empty when the next cell in
 * order is claimed but not yet published, even if a later producer's offer has
 * returned. A consumer that sleeps on empty relies on that producer publishing and
 * then waking it.
 */
public final class MpscIntRing {
    private static final VarHandle SEQ = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle TAIL;

    static {
        try {
            TAIL = MethodHandles.lookup().findVarHandle(MpscIntRing.class, "tail", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int mask;
    private final long[] seq;
    private final int[] values;
    @SuppressWarnings("unused") // accessed through TAIL
    private volatile long tail;
    private long head; // consumer only

    /** Holds at least {@code minCapacity} values (the next power of two, at least 4). */
    public MpscIntRing(int minCapacity) {
        if (minCapacity < 1 || minCapacity > 1 << 30) {
            throw new IllegalArgumentException("capacity " + minCapacity + " is out of range (1.." + (1 << 30) + ")");
        }
        int cap = Integer.highestOneBit(Math.max(2, minCapacity - 1)) << 1;
        mask = cap - 1;
        seq = new long[cap];
        values = new int[cap];
        for (int i = 0; i < cap; i++) {
            seq[i] = i;
        }
    }

    public int capacity() {
        return mask + 1;
    }

    /**
     * Producers: false only if full (a caller bug: more completions than slots). {@code v} must not be negative:
     * {@link #poll} answers -1 for empty.
     */
    public boolean offer(int v) {
        if (v < 0) {
            throw new IllegalArgumentException("negative value " + v);
        }
        while (true) {
            long t = (long) TAIL.getVolatile(this);
            int i = (int) t & mask;
            long s = (long) SEQ.getAcquire(seq, i); // pairs with the consumer's setRelease in poll
            if (s == t) {
                if (TAIL.compareAndSet(this, t, t + 1)) {
                    values[i] = v;
                    SEQ.setRelease(seq, i, t + 1); // publishes values[i]; pairs with getAcquire in poll
                    return true;
                }
            } else if (s < t) {
                return false;
            }
        }
    }

    /** Consumer: the next value, or -1 when empty. */
    public int poll() {
        int i = (int) head & mask;
        long s = (long) SEQ.getAcquire(seq, i); // pairs with setRelease in offer
        if (s != head + 1) {
            return -1;
        }
        int v = values[i];
        SEQ.setRelease(seq, i, head + mask + 1); // frees the cell for the producer lap after next
        head++;
        return v;
    }

    /**
     * Consumer, before it sleeps: true when no producer has claimed a cell the consumer has not taken yet (a
     * claimed cell may still be unpublished: then poll again shortly, do not sleep). A consumer that writes a
     * volatile "waiting" flag and then finds nothing claimed here, and a producer that claims a cell (the CAS in
     * offer) and then reads the flag, cannot both miss each other: all four accesses are volatile, so one pair
     * comes first in the synchronization order (Dekker). {@link #isEmpty} cannot serve for this: its acquire read
     * of the cell's sequence pairs with the producer's release store, which may still sit in the producer's store
     * buffer while the producer reads the flag.
     */
    public boolean nothingClaimed() {
        return (long) TAIL.getVolatile(this) == head;   // pairs with the CAS of TAIL in offer
    }

    public boolean isEmpty() {
        return (long) SEQ.getAcquire(seq, (int) head & mask) != head + 1;
    }
}
