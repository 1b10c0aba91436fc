package io.hostwide.blk;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;

/** A minimal per-hctx FIFO scheduler, to exercise the scheduler-tag / driver-tag split through the SPI. */
final class FifoTestScheduler implements IoScheduler {
    static final String NAME = "test-fifo";
    private final ConcurrentHashMap<Hctx, ConcurrentLinkedDeque<Request>> lists = new ConcurrentHashMap<>();

    static void register() {
        IoSchedulers.register(NAME, FifoTestScheduler::new);
    }

    @Override
    public String name() {
        return NAME;
    }

    private ConcurrentLinkedDeque<Request> list(Hctx h) {
        return lists.computeIfAbsent(h, k -> new ConcurrentLinkedDeque<>());
    }

    @Override
    public void insert(Hctx hctx, Request rq, boolean atHead) {
        if (atHead) {
            list(hctx).addFirst(rq);
        } else {
            list(hctx).addLast(rq);
        }
    }

    @Override
    public Request dispatch(Hctx hctx) {
        return list(hctx).pollFirst();
    }

    @Override
    public boolean hasWork(Hctx hctx) {
        return !list(hctx).isEmpty();
    }
}
