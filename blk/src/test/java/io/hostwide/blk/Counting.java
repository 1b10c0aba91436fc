package io.hostwide.blk;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A completion callback that counts per userData and per status, to check exactly-once completion. */
final class Counting implements IoCallback {
    final ConcurrentHashMap<Long, AtomicInteger> perIo = new ConcurrentHashMap<>();
    final ConcurrentHashMap<BlkStatus, AtomicInteger> perStatus = new ConcurrentHashMap<>();
    final AtomicInteger total = new AtomicInteger();

    @Override
    public void onComplete(long userData, BlkStatus status) {
        perIo.computeIfAbsent(userData, k -> new AtomicInteger()).incrementAndGet();
        perStatus.computeIfAbsent(status, k -> new AtomicInteger()).incrementAndGet();
        total.incrementAndGet();
    }

    int status(BlkStatus s) {
        AtomicInteger n = perStatus.get(s);
        return n == null ? 0 : n.get();
    }

    boolean eachExactlyOnce(int ios) {
        if (perIo.size() != ios) {
            return false;
        }
        for (AtomicInteger n : perIo.values()) {
            if (n.get() != 1) {
                return false;
            }
        }
        return true;
    }
}
