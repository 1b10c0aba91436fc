package io.hostwide.iscsi.server;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * What a read of a block may legally return while many initiators write it concurrently, checked without a global
 * lock. Every write gets a unique generation (stamped into each of its blocks) and ticks of one logical clock when it
 * is sent and when its GOOD status arrives. A read may return write W unless some write W' was sent after W was
 * acknowledged and was itself acknowledged before the read was sent (then W was overwritten for good: returning it
 * means an acknowledged write was lost). Writes never acknowledged (their connection dropped) may or may not have
 * landed, so they are always acceptable.
 *
 * <p>Per block, {@code floor} holds the largest send tick of the acknowledged writes covering it. A read reads the
 * floors of its blocks before taking its own send tick, so an acknowledgement racing with the read can only make the
 * check weaker, never report a false loss.
 */
final class WriteHistory {
    static final int BLOCK = 512;
    private static final int CHUNK_BITS = 16;
    private static final int CHUNK = 1 << CHUNK_BITS;

    private final AtomicLong clock = new AtomicLong();
    private final AtomicLong generations = new AtomicLong();
    private final AtomicReferenceArray<AtomicLongArray> sent = new AtomicReferenceArray<>(4096);
    private final AtomicReferenceArray<AtomicLongArray> acked = new AtomicReferenceArray<>(4096);
    private final AtomicLongArray floor;

    WriteHistory(int blocks) {
        floor = new AtomicLongArray(blocks);
    }

    long tick() {
        return clock.incrementAndGet();
    }

    /** A new write is about to be sent: its generation (never 0). */
    long newWrite() {
        long g = generations.incrementAndGet();
        chunk(sent, g).set((int) (g & (CHUNK - 1)), tick());
        return g;
    }

    /** The write's GOOD status arrived. */
    void acknowledged(long gen, long lba, int blocks) {
        long ack = tick();
        chunk(acked, gen).set((int) (gen & (CHUNK - 1)), ack);
        long issued = sentTick(gen);
        for (int b = 0; b < blocks; b++) {
            floor.accumulateAndGet((int) (lba + b), issued, Math::max);
        }
    }

    /** Called before a read is sent, before its send tick: what the read must at least see. */
    void floors(long lba, int blocks, long[] into) {
        for (int b = 0; b < blocks; b++) {
            into[b] = floor.get((int) (lba + b));
        }
    }

    /** Checks one block of a completed read; returns null when legal, else what is wrong. */
    String check(byte[] data, int at, long lba, long floorTick) {
        long gen = BlockStamp.generation(data, at, lba);
        if (gen == BlockStamp.CORRUPT) {
            return "block " + lba + " is corrupt or belongs to another LBA: " + BlockStamp.describe(data, at);
        }
        if (gen == 0) {
            return floorTick == 0 ? null : "block " + lba + " reads as never written after an acknowledged write";
        }
        if (gen > generations.get()) {
            return "block " + lba + " carries generation " + gen + " that was never written";
        }
        long ack = chunk(acked, gen).get((int) (gen & (CHUNK - 1)));
        if (ack != 0 && floorTick > ack) {
            return "block " + lba + " returned generation " + gen + " although a later write was acknowledged";
        }
        return null;
    }

    long writes() {
        return generations.get();
    }

    private long sentTick(long gen) {
        return chunk(sent, gen).get((int) (gen & (CHUNK - 1)));
    }

    private static AtomicLongArray chunk(AtomicReferenceArray<AtomicLongArray> table, long gen) {
        int i = (int) (gen >>> CHUNK_BITS);
        AtomicLongArray c = table.get(i);
        if (c == null) {
            table.compareAndSet(i, null, new AtomicLongArray(CHUNK));
            c = table.get(i);
        }
        return c;
    }
}
