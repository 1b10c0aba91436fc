package io.hostwide.tcm.backstore;

import io.hostwide.tcm.spi.SpaceAllocationFailedException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.hostwide.tcm.backstore.RamBackstore.PAGE_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The RAM backstore's page table is sparse (issue 12: a 16 TiB LUN reserved 1.1 GiB of page table before its first
 * write and 64 TiB could not start), its pages come from a shared {@link RamBudget}, and a spent budget refuses a
 * write whole instead of running the heap out.
 */
class RamBackstoreTest {
    static final long TIB = 1L << 40;
    static final int BLOCK = 512;

    static ByteBuffer block(int seed) {
        ByteBuffer b = ByteBuffer.allocate(BLOCK);
        for (int i = 0; i < BLOCK; i++) {
            b.put(i, (byte) (seed * 31 + i));
        }
        return b;
    }

    static byte[] read(RamBackstore ram, long lba, int blocks) {
        ByteBuffer b = ByteBuffer.allocate(blocks * BLOCK);
        ram.read(lba, b);
        assertThat(b.hasRemaining()).isFalse();
        return b.array();
    }

    @Test
    void a128TibThinLunStartsWithAFewKibOfMetadataAndWritesAtBothEndsReadBack() throws Exception {
        RamBudget budget = new RamBudget(1L << 30);
        RamBackstore ram = new RamBackstore(128 * TIB, BLOCK, budget, false);
        assertThat(ram.rootSlots()).isEqualTo(2048); // 8 KiB of references: one per 64 GiB
        assertThat(ram.allocatedNodes()).isZero();
        assertThat(ram.allocatedPages()).isZero();
        long last = ram.blockCount() - 1;
        assertThat(read(ram, last, 1)).containsOnly(0); // reading allocates nothing
        assertThat(ram.allocatedNodes()).isZero();
        ram.write(0, block(1), false);
        ram.write(last, block(2), false);
        assertThat(read(ram, 0, 1)).isEqualTo(block(1).array());
        assertThat(read(ram, last, 1)).isEqualTo(block(2).array());
        assertThat(ram.allocatedPages()).isEqualTo(2);
        assertThat(ram.allocatedNodes()).isEqualTo(4); // a mid and a leaf at either end
        assertThat(budget.used()).isEqualTo(2L * PAGE_SIZE);
        assertThat(ram.provisioningRun(1, Long.MAX_VALUE)).isEqualTo(PAGE_SIZE / BLOCK - 1);
        // the run of unmapped blocks between them is found without walking 2^31 pages
        assertThat(ram.provisioningRun(PAGE_SIZE / BLOCK, Long.MAX_VALUE))
                .isEqualTo(-(ram.blockCount() - 2L * PAGE_SIZE / BLOCK));
        ram.unmap(0, ram.blockCount()); // the whole LUN: absent subtrees are skipped
        assertThat(ram.allocatedPages()).isZero();
        assertThat(ram.allocatedNodes()).isZero(); // empty leaves and mids are freed too
        assertThat(budget.used()).isZero();
        assertThat(read(ram, last, 1)).containsOnly(0);
    }

    @Test
    void sizesUpTo1PibAreAcceptedAndBeyondRefused() throws Exception {
        assertThat(new RamBackstore(RamBackstore.MAX_SIZE, 4096, RamBudget.unlimited(), false).rootSlots())
                .isEqualTo(16384);
        assertThatThrownBy(() -> new RamBackstore(RamBackstore.MAX_SIZE + 4096, 4096))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 PiB");
    }

    @Test
    void aSpentBudgetRefusesTheWholeWriteAndUnmapGivesRoomBack() throws Exception {
        RamBudget budget = new RamBudget(3L * PAGE_SIZE);
        RamBackstore a = new RamBackstore(TIB, BLOCK, budget, false);
        RamBackstore b = new RamBackstore(TIB, BLOCK, budget, false);
        int pageBlocks = PAGE_SIZE / BLOCK;
        a.write(0, ByteBuffer.allocate(2 * PAGE_SIZE), false);
        ByteBuffer twoPages = ByteBuffer.allocate(2 * PAGE_SIZE);
        Arrays.fill(twoPages.array(), (byte) 7);
        // two new pages, one left in the budget: refused before any block changes
        assertThatThrownBy(() -> b.write(10L * pageBlocks, twoPages, false))
                .isInstanceOf(SpaceAllocationFailedException.class).hasMessageContaining("RAM budget");
        assertThat(twoPages.position()).isZero(); // nothing consumed, nothing written
        assertThat(b.allocatedPages()).isZero();
        assertThat(read(b, 10L * pageBlocks, 1)).containsOnly(0);
        assertThat(budget.used()).isEqualTo(2L * PAGE_SIZE);
        a.write(5, block(3), false); // into an allocated page: needs nothing from the budget
        assertThat(read(a, 5, 1)).isEqualTo(block(3).array());
        a.unmap(0, pageBlocks);
        b.write(10L * pageBlocks, twoPages, false);
        assertThat(read(b, 11L * pageBlocks, 1)).containsOnly(7);
        assertThat(budget.used()).isEqualTo(3L * PAGE_SIZE);
        b.close();
        a.close();
        a.close(); // twice gives nothing back twice
        assertThat(budget.used()).isZero();
    }

    @Test
    void aThickLunReservesItsSizeUpFrontAndIsRefusedWhenItDoesNotFit() throws Exception {
        RamBudget budget = new RamBudget(64L << 20);
        RamBackstore thick = new RamBackstore(48L << 20, BLOCK, budget, true);
        assertThat(budget.used()).isEqualTo(48L << 20);
        assertThat(thick.allocatedPages()).isZero(); // reserved, not touched
        assertThatThrownBy(() -> new RamBackstore(32L << 20, BLOCK, budget, true))
                .isInstanceOf(SpaceAllocationFailedException.class)
                .hasMessage("a thick RAM backstore of 33554432 bytes does not fit in the RAM budget: 16777216 of "
                        + "67108864 bytes left");
        RamBackstore thin = new RamBackstore(TIB, BLOCK, budget, false);
        thin.write(0, ByteBuffer.allocate(16 << 20), false); // the 16 MiB left
        assertThatThrownBy(() -> thin.write(1L << 30, block(1), false))
                .isInstanceOf(SpaceAllocationFailedException.class);
        thick.write(0, ByteBuffer.allocate(48 << 20), false); // within its own reservation
        thick.unmap(0, thick.blockCount());
        assertThat(budget.used()).isEqualTo(64L << 20); // a thick LUN keeps its reservation
        thick.close();
        assertThat(budget.used()).isEqualTo(16L << 20);
    }

    @Test
    void partialPagesAtTheEndOfAnOddSizedLunAreFreedByUnmap() throws Exception {
        RamBackstore ram = new RamBackstore(PAGE_SIZE + 4 * BLOCK, BLOCK);
        ram.write(ram.blockCount() - 1, block(4), false);
        assertThat(ram.allocatedPages()).isEqualTo(1);
        ram.unmap(PAGE_SIZE / BLOCK, 4);
        assertThat(ram.allocatedPages()).isZero();
        assertThat(ram.provisioningRun(0, Long.MAX_VALUE)).isEqualTo(-ram.blockCount());
    }

    /** Writers and unmappers racing on the same leaf and pages: every page counted once, no write into a lost page. */
    @Test
    void concurrentInstallAndFreeKeepCountsAndBudgetExact() throws Exception {
        RamBudget budget = RamBudget.unlimited();
        RamBackstore ram = new RamBackstore(1L << 30, BLOCK, budget, false);
        int threads = 4;
        int pageBlocks = PAGE_SIZE / BLOCK;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                fs.add(pool.submit(() -> {
                    start.await();
                    ByteBuffer b = ByteBuffer.allocate(BLOCK);
                    for (int i = 0; i < 20_000; i++) {
                        long page = (i * 7L + id) % 8; // 8 pages of one leaf, shared by all threads
                        if ((i + id) % 3 == 0) {
                            ram.unmap(page * pageBlocks, pageBlocks);
                        } else {
                            b.clear();
                            ram.write(page * pageBlocks + id, b, false);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        long mapped = 0;
        for (long p = 0; p < 8; p++) {
            if (ram.provisioningRun(p * pageBlocks, 1) > 0) {
                mapped++;
            }
        }
        assertThat(ram.allocatedPages()).isEqualTo(mapped);
        assertThat(budget.used()).isEqualTo(mapped * PAGE_SIZE);
        assertThat(ram.allocatedNodes()).isEqualTo(mapped == 0 ? 0 : 2);
        ram.unmap(0, 8L * pageBlocks);
        assertThat(ram.allocatedNodes()).isZero();
        assertThat(budget.used()).isZero();
    }

    /** Random writes, unmaps and zeroings against a map of block contents: reads and provisioning agree. */
    @Property(tries = 200)
    void matchesASimpleModel(@ForAll @Size(max = 40) List<@IntRange(max = 1 << 20) Integer> ops) throws Exception {
        long blocks = 3L * (1 << 21) + 5; // three mid nodes' worth of pages at 512-byte blocks, and a partial page
        RamBackstore ram = new RamBackstore(blocks * BLOCK, BLOCK);
        Map<Long, Byte> model = new HashMap<>();
        for (int op : ops) {
            long lba = (long) (op % 4096) * 1_543 % blocks;
            int n = (int) Math.min(1 + (op >>> 12) % 300, blocks - lba);
            switch ((op >>> 4) % 3) {
                case 0 -> {
                    ByteBuffer b = ByteBuffer.allocate(n * BLOCK);
                    Arrays.fill(b.array(), (byte) (op | 1));
                    ram.write(lba, b, false);
                    for (long i = lba; i < lba + n; i++) {
                        model.put(i, (byte) (op | 1));
                    }
                }
                case 1 -> {
                    ram.unmap(lba, n);
                    for (long i = lba; i < lba + n; i++) {
                        model.remove(i);
                    }
                }
                default -> {
                    ram.writeZeros(lba, n);
                    for (long i = lba; i < lba + n; i++) {
                        model.remove(i);
                    }
                }
            }
        }
        for (Map.Entry<Long, Byte> e : model.entrySet()) {
            assertThat(read(ram, e.getKey(), 1)).containsOnly(e.getValue());
            assertThat(ram.provisioningRun(e.getKey(), 1)).isEqualTo(1); // written blocks are mapped
        }
        long lba = 0;
        long pages = 0;
        while (lba < blocks) { // the runs tile the LUN, and mapped runs are what the pages hold
            long run = ram.provisioningRun(lba, Long.MAX_VALUE);
            assertThat(run).isNotZero();
            if (run > 0) {
                pages += (lba + run + 127) / 128 - lba / 128;
            }
            lba += Math.abs(run);
        }
        assertThat(lba).isEqualTo(blocks);
        assertThat(ram.allocatedPages()).isEqualTo(pages);
    }
}
