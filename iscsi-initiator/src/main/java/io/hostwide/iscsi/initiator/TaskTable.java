package io.hostwide.iscsi.initiator;

import io.hostwide.scsi.mid.ScsiCmnd;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Predicate;

/**
 * Tasks by ITT without a map: ITT = generation (15 bits) << 16 | slot. Block-request slots are created on first use
 * and kept (the command slots live as long as the host); internal commands (scan, error-handling TEST UNIT READY)
 * borrow a slot for one issue. The high bit is never set, so command ITTs never meet task management tags
 * (see {@link InitiatorSession}) or 0xffffffff.
 */
final class TaskTable {
    static final int SLOTS = 0xffff;

    private final AtomicReferenceArray<IscsiTask> tasks = new AtomicReferenceArray<>(SLOTS);
    /** Generation per slot; written only by the slot's current issuer (one at a time per slot). */
    private final int[] generation = new int[SLOTS];
    private final AtomicInteger used = new AtomicInteger();
    private final ConcurrentLinkedQueue<Integer> free = new ConcurrentLinkedQueue<>();

    /**
     * The task of each block-request command slot, also kept as the slot's {@code lldPrivate} (which the midlayer keeps
     * across issues); this map is the authority, so a slot whose lldPrivate a test or driver replaced still finds its
     * one task (identity keys: one lookup, no allocation).
     */
    private final ConcurrentHashMap<ScsiCmnd, IscsiTask> byCommand = new ConcurrentHashMap<>();

    /** The task of {@code cmd} for a new issue, or null when all 65535 slots are taken. */
    IscsiTask taskFor(ScsiCmnd cmd) {
        boolean internal = cmd.isInternal();
        if (!internal) {
            IscsiTask t = byCommand.get(cmd);
            if (t == null) {
                t = newTask(cmd, false);
                if (t == null) {
                    return null;
                }
                byCommand.put(cmd, t);
            }
            cmd.lldPrivate(t);
            return t;
        }
        if (cmd.lldPrivate() instanceof IscsiTask t && !t.released) {
            return t;   // an internal command re-offered after a busy refusal
        }
        return newTask(cmd, true);
    }

    private IscsiTask newTask(ScsiCmnd cmd, boolean internal) {
        Integer reuse = internal ? free.poll() : null;
        int slot = reuse != null ? reuse : used.getAndIncrement();
        if (slot >= SLOTS) {
            used.decrementAndGet();
            return null;
        }
        IscsiTask t = new IscsiTask(cmd, slot, internal);
        tasks.set(slot, t);
        cmd.lldPrivate(t);
        return t;
    }

    /** Slots ever created (block-request slots are kept, internal ones recycled). */
    int slotsCreated() {
        return Math.min(used.get(), SLOTS);
    }

    /** The next ITT of {@code t}'s slot. */
    int nextItt(IscsiTask t) {
        int g = (generation[t.slot] + 1) & 0x7fff;
        generation[t.slot] = g;
        return g << 16 | t.slot;
    }

    /** The task an ITT from the target names, or null; the caller still compares the ITT with the task's. */
    IscsiTask lookup(int itt) {
        int slot = itt & 0xffff;
        if (itt < 0 || slot >= SLOTS) {
            return null;
        }
        return tasks.get(slot);
    }

    /** {@link IscsiTask#claim} plus the return of an internal task's slot. */
    boolean claim(IscsiTask t, int itt) {
        if (!t.claim(itt)) {
            return false;
        }
        if (t.internal) {
            t.released = true;
            free.add(t.slot);
        }
        return true;
    }

    /** Calls {@code action} with each outstanding task matching {@code which} and its ITT (not yet claimed). */
    void forEachOutstanding(Predicate<IscsiTask> which, java.util.function.ObjIntConsumer<IscsiTask> action) {
        int n = Math.min(used.get(), SLOTS);
        for (int i = 0; i < n; i++) {
            IscsiTask t = tasks.get(i);
            if (t == null) {
                continue;
            }
            int itt = t.itt();
            if (itt != IscsiTask.NONE && which.test(t)) {
                action.accept(t, itt);
            }
        }
    }
}
