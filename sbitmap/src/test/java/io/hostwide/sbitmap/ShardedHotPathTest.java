package io.hostwide.sbitmap;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** DESIGN.md: no allocation per I/O. get and clear of the sharded queue allocate nothing. */
class ShardedHotPathTest {

    @Test
    void getAndClearAllocateNothingWithOrWithoutACallbackWaiter() {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Assumptions.assumeTrue(mx instanceof com.sun.management.ThreadMXBean, "needs allocation counters");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) mx;
        ShardedSbitmapQueue q = new ShardedSbitmapQueue(SbitmapConfig.of(256, 2));
        int[] batch = new int[8];
        WaitEntry idle = new WaitEntry() {
            @Override
            protected void wake() {
            }
        };
        WaitIndex wi = new WaitIndex();
        Runnable work = () -> {
            for (int i = 0; i < 20_000; i++) {
                int bit = q.get(i & 1);
                q.clear(bit, i & 1);
                int n = q.getBatch(8, 0, batch);
                q.clearBatch(batch, n);
            }
        };
        work.run(); // warm up, so the counters below see steady state
        long before = threads.getCurrentThreadAllocatedBytes();
        work.run();
        long withoutWaiters = threads.getCurrentThreadAllocatedBytes() - before;

        // With a waiter the wake-up path runs: fired entries are chained, not listed.
        Runnable withEntry = () -> {
            for (int i = 0; i < 20_000; i++) {
                q.addWaitQueue(idle, wi);
                int bit = q.get(0);
                q.clear(bit, 0);
            }
        };
        withEntry.run();
        before = threads.getCurrentThreadAllocatedBytes();
        withEntry.run();
        long withWaiter = threads.getCurrentThreadAllocatedBytes() - before;

        // 80,000 and 60,000 operations: a single allocation per operation would be >= 16 bytes each.
        assertThat(withoutWaiters).as("bytes allocated by 80k get/clear/batch ops").isLessThan(4096);
        assertThat(withWaiter).as("bytes allocated by 20k register/get/clear with a waiter").isLessThan(4096);
    }
}
