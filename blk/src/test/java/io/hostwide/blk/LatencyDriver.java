package io.hostwide.blk;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test driver completing each request after a short random delay on another
 * thread, with per-queue budgets and injected RESOURCE, DEV_RESOURCE (only while
 * the same hctx has something in flight, as the status promises) and requeues.
 */
final class LatencyDriver implements BlkMqOps {
    private final ScheduledExecutorService completer;
    private final int budgetPerQueue;
    private final int resourceEvery;
    private final int devResourceEvery;
    private final int requeueEvery;
    private final ConcurrentHashMap<RequestQueue, AtomicInteger> budgets = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Hctx, AtomicInteger> inflight = new ConcurrentHashMap<>();
    private final AtomicLong calls = new AtomicLong();
    final AtomicInteger resources = new AtomicInteger();
    final AtomicInteger devResources = new AtomicInteger();
    final AtomicInteger requeues = new AtomicInteger();
    final AtomicInteger budgetDenied = new AtomicInteger();

    LatencyDriver(ScheduledExecutorService completer, int budgetPerQueue, int resourceEvery, int devResourceEvery,
                  int requeueEvery) {
        this.completer = completer;
        this.budgetPerQueue = budgetPerQueue;
        this.resourceEvery = resourceEvery;
        this.devResourceEvery = devResourceEvery;
        this.requeueEvery = requeueEvery;
    }

    private AtomicInteger inflight(Hctx h) {
        return inflight.computeIfAbsent(h, k -> new AtomicInteger());
    }

    @Override
    public BlkStatus queueRq(Hctx hctx, Request rq, boolean last) {
        long n = calls.incrementAndGet();
        if (resourceEvery > 0 && n % resourceEvery == 0) {
            resources.incrementAndGet();
            return BlkStatus.RESOURCE;
        }
        AtomicInteger inf = inflight(hctx);
        if (devResourceEvery > 0 && n % devResourceEvery == 1 && inf.get() > 0) {
            devResources.incrementAndGet();
            return BlkStatus.DEV_RESOURCE;
        }
        inf.incrementAndGet();
        rq.start();
        boolean requeue = requeueEvery > 0 && n % requeueEvery == 2;
        long delay = ThreadLocalRandom.current().nextLong(20, 300);
        completer.schedule(() -> {
            inf.decrementAndGet();
            if (requeue) {
                requeues.incrementAndGet();
                rq.requeue(true);
            } else {
                rq.complete(BlkStatus.OK);
            }
        }, delay, TimeUnit.MICROSECONDS);
        return BlkStatus.OK;
    }

    @Override
    public boolean hasBudget() {
        return budgetPerQueue > 0;
    }

    @Override
    public int getBudget(RequestQueue q) {
        AtomicInteger b = budgets.computeIfAbsent(q, k -> new AtomicInteger());
        for (;;) {
            int cur = b.get();
            if (cur >= budgetPerQueue) {
                budgetDenied.incrementAndGet();
                return -1;
            }
            if (b.compareAndSet(cur, cur + 1)) {
                return 0;
            }
        }
    }

    @Override
    public void putBudget(RequestQueue q, int token) {
        budgets.get(q).decrementAndGet();
    }
}
