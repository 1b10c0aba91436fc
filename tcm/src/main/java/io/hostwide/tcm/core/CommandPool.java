package io.hostwide.tcm.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;


/**
 * Free list of a session's commands: a bounded multi-producer multi-consumer ring (Vyukov's sequence-numbered
 * slots), so that any thread may release a command and any connection thread may take one without a lock and
 * without allocating. When empty, {@link #poll()} returns null and the session creates a fresh command; when full
 * (including transiently, while a concurrent poll of a full ring finishes), {@link #offer} refuses and the command
 * is left to the garbage collector. Sessions size the ring at twice their pool size so that this stays rare.
 */
final class CommandPool {
    private static final VarHandle SEQ = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(CoreCommand[].class);

    private final int mask;
    private final long[] sequence;
    private final CoreCommand[] slots;
    private final AtomicLong head = new AtomicLong(); // consumers
    private final AtomicLong tail = new AtomicLong(); // producers

    CommandPool(int capacity) {
        int cap = Integer.highestOneBit(Math.max(2, capacity - 1)) << 1;
        this.mask = cap - 1;
        this.sequence = new long[cap];
        this.slots = new CoreCommand[cap];
        for (int i = 0; i < cap; i++) {
            sequence[i] = i;
        }
    }

    boolean offer(CoreCommand c) {
        while (true) {
            long t = tail.get();
            int i = (int) t & mask;
            long seq = (long) SEQ.getAcquire(sequence, i); // acquire: pairs with the consumer's setRelease in poll
            if (seq == t) {
                if (tail.compareAndSet(t, t + 1)) {
                    SLOT.setOpaque(slots, i, c);
                    SEQ.setRelease(sequence, i, t + 1); // release: publishes the slot to poll's getAcquire
                    return true;
                }
            } else if (seq < t) {
                return false; // full
            }
        }
    }

    CoreCommand poll() {
        while (true) {
            long h = head.get();
            int i = (int) h & mask;
            long seq = (long) SEQ.getAcquire(sequence, i); // acquire: pairs with offer's setRelease
            if (seq == h + 1) {
                if (head.compareAndSet(h, h + 1)) {
                    CoreCommand c = (CoreCommand) SLOT.getOpaque(slots, i);
                    SLOT.setOpaque(slots, i, null);
                    SEQ.setRelease(sequence, i, h + mask + 1); // release: frees the slot for offer's getAcquire
                    return c;
                }
            } else if (seq < h + 1) {
                return null; // empty
            }
        }
    }
}
