package io.hostwide.blk.nullb;

import io.hostwide.blk.CompletionBatch;

/**
 * Per-thread {@link CompletionBatch}es, one per nesting level: a completion
 * callback may lead to another completion on the same thread, which must not
 * reuse the batch still being completed.
 */
final class Batches {
    private static final ThreadLocal<Batches> LOCAL = ThreadLocal.withInitial(Batches::new);
    private CompletionBatch[] levels = new CompletionBatch[4];
    private int depth;

    static CompletionBatch acquire() {
        Batches b = LOCAL.get();
        if (b.depth == b.levels.length) {
            b.levels = java.util.Arrays.copyOf(b.levels, b.levels.length * 2);
        }
        CompletionBatch batch = b.levels[b.depth];
        if (batch == null) {
            batch = new CompletionBatch();
            b.levels[b.depth] = batch;
        }
        b.depth++;
        return batch;
    }

    static void release() {
        LOCAL.get().depth--;
    }
}
