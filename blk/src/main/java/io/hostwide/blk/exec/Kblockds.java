package io.hostwide.blk.exec;

/** The process-wide runtime {@link Kblockd}, created on first use (two daemon threads, like a small kblockd). */
public final class Kblockds {
    private static final int THREADS = Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors()));
    private static ThreadPoolKblockd shared;

    private Kblockds() {
    }

    public static synchronized Kblockd shared() {
        if (shared == null) {
            shared = new ThreadPoolKblockd("kblockd", THREADS);
        }
        return shared;
    }
}
