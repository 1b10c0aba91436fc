package io.hostwide.iscsi.server;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The soak test's initiator-side rule for overlapping I/O, as a file system or database keeps it: commands in flight
 * at once never overlap unless all of them are reads. Overlapping writes in flight together may legally leave a mix
 * of both in a block (SBC-4 gives no atomicity to plain writes, and the RAM backstore copies without locks), so the
 * test keeps them apart and can then demand exact answers. Per block: readers count up, a writer holds -1.
 */
final class BlockLocks {
    private final AtomicIntegerArray state;

    BlockLocks(int blocks) {
        state = new AtomicIntegerArray(blocks);
    }

    boolean tryLock(long lba, int blocks, boolean write) {
        for (int b = 0; b < blocks; b++) {
            int i = (int) (lba + b);
            boolean ok;
            if (write) {
                ok = state.compareAndSet(i, 0, -1);
            } else {
                int v = state.get(i);
                ok = v >= 0 && state.compareAndSet(i, v, v + 1);
            }
            if (!ok) {
                unlock(lba, b, write);
                return false;
            }
        }
        return true;
    }

    void unlock(long lba, int blocks, boolean write) {
        for (int b = 0; b < blocks; b++) {
            if (write) {
                state.set((int) (lba + b), 0);
            } else {
                state.decrementAndGet((int) (lba + b));
            }
        }
    }
}
