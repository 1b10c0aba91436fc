package io.hostwide.tcm.backstore;

import io.hostwide.tcm.spi.Backstore;
import io.hostwide.tcm.spi.SpaceAllocationFailedException;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory-backed storage, sparse in its data and in its metadata: 64 KiB pages allocated on first write, found
 * through a three-level radix table whose interior nodes are also created on first write and freed when they empty.
 * A LUN costs 4 bytes per 64 GiB of size up front (the root) plus about 4 KiB per 64 MiB region written to, so a
 * 128 TiB LUN starts with 8 KiB; the limit is {@link #MAX_SIZE}. Pages never written read as zeros without
 * allocating; unmapping a whole page frees it (exact provisioning state at page granularity, {@link #pageBlocks()},
 * reported as the optimal unmap granularity); unmapping part of a page zeroes those blocks and leaves the page
 * mapped, which is what GET LBA STATUS then says. Never blocks: the core calls it inline.
 *
 * <p>Memory comes from a {@link RamBudget} shared by the RAM LUNs of a process. A thin LUN reserves each page before
 * allocating it and gives it back when the page is freed; when the budget is spent a write fails with
 * {@link SpaceAllocationFailedException} before it changes any block (SPACE ALLOCATION FAILED WRITE PROTECT, SBC-4
 * §4.7.3.6). A thick LUN reserves its whole size when created, so its writes never fail for space; its pages are
 * still allocated on first write (the budget, not the pages, is what guarantees the room).
 *
 * <p>Concurrency: lock-free. Nodes and pages are installed with a CAS (release) and read with acquire loads that
 * pair with it. Each node counts its children; the remover that takes a count to 0 marks the node dead (a CAS
 * 0 → {@value #DEAD}) and unlinks it, and an installer increments the count before it installs a child, so a node
 * being unlinked never receives one (the installer sees it dead, helps unlink it and retries from the root). Data
 * copies into a page are not atomic with respect to overlapping writes (SCSI does not require it; the core's range
 * lock serialises the commands that must be atomic).
 */
public final class RamBackstore implements Backstore {
    /** Bytes per page (64 KiB). */
    public static final int PAGE_SIZE = 64 * 1024;
    /** The largest LUN: 1 PiB (2^34 pages; the root then has 16,384 slots, 64 KiB). */
    public static final long MAX_SIZE = 1L << 50;

    private static final int PAGE_SHIFT = 16;
    private static final int LEVEL_BITS = 10;
    /** Children per interior node: a leaf maps 64 MiB, a mid node 64 GiB. */
    private static final int FANOUT = 1 << LEVEL_BITS;
    private static final int MASK = FANOUT - 1;
    /** A node's child count lives in its last slot, after the FANOUT children. */
    private static final int COUNT = FANOUT;
    private static final int DEAD = -1;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

    private final int blockSize;
    private final long blockCount;
    private final int pageBlocks;
    private final long pageCount;
    /** Mid nodes, one per 64 GiB of capacity; the only part sized by the LUN. */
    private final Object[] root;
    private final RamBudget budget;
    private final boolean thick;
    private final AtomicLong allocatedPages = new AtomicLong();
    private final AtomicLong allocatedNodes = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();

    /** A thin LUN with a budget of its own that never refuses (tests, embedders). */
    public RamBackstore(long sizeBytes, int blockSize) {
        this(sizeBytes, blockSize, RamBudget.unlimited(), false, null);
    }

    /**
     * A LUN drawing from {@code budget}.
     *
     * @param thick reserve the whole size now (SBC-4 §4.7.2: a fully provisioned LU has all its blocks mapped)
     * @throws SpaceAllocationFailedException when {@code thick} and the budget cannot hold the size
     */
    public RamBackstore(long sizeBytes, int blockSize, RamBudget budget, boolean thick)
            throws SpaceAllocationFailedException {
        this(sizeBytes, blockSize, budget, thick, null);
        if (thick && !budget.tryReserve(pageCount * PAGE_SIZE)) {
            throw new SpaceAllocationFailedException("a thick RAM backstore of " + sizeBytes + " bytes does not fit "
                    + "in the RAM budget: " + (budget.limit() - budget.used()) + " of " + budget.limit()
                    + " bytes left");
        }
    }

    private RamBackstore(long sizeBytes, int blockSize, RamBudget budget, boolean thick, Void unused) {
        if (blockSize < 512 || blockSize > PAGE_SIZE || Integer.bitCount(blockSize) != 1) {
            throw new IllegalArgumentException("block size must be a power of two in 512.." + PAGE_SIZE + ": " + blockSize);
        }
        if (sizeBytes < blockSize || sizeBytes > MAX_SIZE) {
            throw new IllegalArgumentException("size out of range (" + blockSize + " bytes to 1 PiB): " + sizeBytes);
        }
        this.blockSize = blockSize;
        this.blockCount = sizeBytes / blockSize;
        this.pageBlocks = PAGE_SIZE / blockSize;
        this.pageCount = (blockCount * blockSize + PAGE_SIZE - 1) >>> PAGE_SHIFT;
        this.root = new Object[(int) ((pageCount + (1L << 2 * LEVEL_BITS) - 1) >>> 2 * LEVEL_BITS)];
        this.budget = budget;
        this.thick = thick;
    }

    @Override
    public int blockSize() { return blockSize; }

    @Override
    public long blockCount() { return blockCount; }

    @Override
    public boolean blocking() { return false; }

    /** Blocks per page: the unit in which storage is allocated and deallocated. */
    public int pageBlocks() { return pageBlocks; }

    /** Pages currently allocated. */
    public long allocatedPages() { return allocatedPages.get(); }

    /** Interior nodes (mid and leaf) currently allocated: the metadata beyond the fixed root. */
    public long allocatedNodes() { return allocatedNodes.get(); }

    /** Slots of the root, the metadata allocated up front (4 bytes each with compressed references). */
    public int rootSlots() { return root.length; }

    public boolean thick() { return thick; }

    public RamBudget budget() { return budget; }

    private static int rootIndex(long pi) { return (int) (pi >>> 2 * LEVEL_BITS); }

    private static int midIndex(long pi) { return (int) (pi >>> LEVEL_BITS) & MASK; }

    private static int leafIndex(long pi) { return (int) pi & MASK; }

    private static Object[] node(Object o) { return (Object[]) o; }

    /** The page, or null: three acquire loads (pairing with the installing CASes), no allocation. */
    private byte[] lookup(long pi) {
        Object[] mid = node(SLOT.getAcquire(root, rootIndex(pi)));
        if (mid == null) {
            return null;
        }
        Object[] leaf = node(SLOT.getAcquire(mid, midIndex(pi)));
        if (leaf == null) {
            return null;
        }
        return (byte[]) SLOT.getAcquire(leaf, leafIndex(pi));
    }

    @Override
    public void read(long lba, ByteBuffer dst) {
        long pos = lba * blockSize;
        while (dst.hasRemaining()) {
            int off = (int) pos & (PAGE_SIZE - 1);
            int n = Math.min(dst.remaining(), PAGE_SIZE - off);
            byte[] page = lookup(pos >>> PAGE_SHIFT);
            if (page == null) {
                zero(dst, n);
            } else {
                dst.put(page, off, n);
            }
            pos += n;
        }
    }

    /**
     * A page of zeros to copy from: one bulk copy per page read of a never-written page, where a loop of 8-byte
     * stores was the slowest part of a large read of a fresh LUN (issue 13: 1 MiB reads). Read-only, so shared.
     */
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(PAGE_SIZE).asReadOnlyBuffer();

    private static void zero(ByteBuffer dst, int n) {
        dst.put(dst.position(), ZEROS, 0, n); // absolute: never moves the shared buffer's position
        dst.position(dst.position() + n);
    }

    /**
     * Reserves the pages the write lacks before copying anything, so a write refused for space changes no block
     * (which also keeps WRITE ATOMIC atomic).
     */
    @Override
    public void write(long lba, ByteBuffer src, boolean fua) throws SpaceAllocationFailedException {
        if (!src.hasRemaining()) {
            return;
        }
        long pos = lba * blockSize;
        long last = (pos + src.remaining() - 1) >>> PAGE_SHIFT;
        long spare = 0;
        for (long pi = pos >>> PAGE_SHIFT; pi <= last; pi++) {
            if (lookup(pi) == null) {
                spare++;
            }
        }
        reserve(spare);
        try {
            while (src.hasRemaining()) {
                long pi = pos >>> PAGE_SHIFT;
                int off = (int) pos & (PAGE_SIZE - 1);
                int n = Math.min(src.remaining(), PAGE_SIZE - off);
                byte[] page = lookup(pi);
                if (page == null) {
                    if (spare == 0) { // unmapped since the count: a concurrent UNMAP of the same blocks
                        reserve(1);
                        spare = 1;
                    }
                    byte[] fresh = newPage();
                    page = install(pi, fresh);
                    if (page == fresh) {
                        spare--;
                        allocatedPages.incrementAndGet();
                    }
                }
                src.get(page, off, n);
                pos += n;
            }
        } finally {
            unreserve(spare); // pages another writer installed first
        }
    }

    private void reserve(long pages) throws SpaceAllocationFailedException {
        if (pages > 0 && !thick && !budget.tryReserve(pages * PAGE_SIZE)) {
            throw new SpaceAllocationFailedException("RAM budget spent: " + budget.used() + " of " + budget.limit()
                    + " bytes reserved by the RAM backstores");
        }
    }

    private void unreserve(long pages) {
        if (pages > 0 && !thick) {
            budget.release(pages * PAGE_SIZE);
        }
    }

    /** A heap that cannot hold one more page is the same answer as a spent budget, for this command only. */
    private static byte[] newPage() throws SpaceAllocationFailedException {
        try {
            return new byte[PAGE_SIZE];
        } catch (OutOfMemoryError e) {
            throw new SpaceAllocationFailedException("the Java heap cannot hold another RAM page", e);
        }
    }

    /**
     * Installs {@code fresh} as page {@code pi} unless one is there; returns the page that is. Missing nodes are
     * created holding their one child (count 1), so no empty node is ever published.
     */
    private byte[] install(long pi, byte[] fresh) {
        int ri = rootIndex(pi);
        int mi = midIndex(pi);
        int li = leafIndex(pi);
        for (;;) {
            Object[] mid = node(SLOT.getAcquire(root, ri));
            if (mid == null) {
                if (SLOT.compareAndSet(root, ri, null, newNode(mi, newNode(li, fresh)))) {
                    allocatedNodes.addAndGet(2);
                    return fresh;
                }
                continue;
            }
            Object[] leaf = node(SLOT.getAcquire(mid, mi));
            if (leaf == null) {
                if (!pin(mid)) {
                    unlink(root, ri, mid);
                    continue;
                }
                if (SLOT.compareAndSet(mid, mi, null, newNode(li, fresh))) {
                    allocatedNodes.incrementAndGet();
                    return fresh;
                }
                unpinMid(mid, ri);
                continue;
            }
            Object page = SLOT.getAcquire(leaf, li);
            if (page != null) {
                return (byte[]) page;
            }
            if (!pin(leaf)) {
                if (unlink(mid, mi, leaf)) {
                    unpinMid(mid, ri);
                }
                continue;
            }
            if (SLOT.compareAndSet(leaf, li, null, fresh)) {
                return fresh;
            }
            unpinLeaf(leaf, mid, mi, ri);
        }
    }

    private static Object[] newNode(int index, Object child) {
        Object[] n = new Object[FANOUT + 1];
        n[index] = child;
        n[COUNT] = new AtomicInteger(1);
        return n; // published by the caller's CAS (release)
    }

    private static AtomicInteger count(Object[] node) { return (AtomicInteger) node[COUNT]; }

    /** Counts a child about to be installed; false when the node is dead (being unlinked). */
    private static boolean pin(Object[] node) {
        AtomicInteger c = count(node);
        for (;;) {
            int v = c.get();
            if (v == DEAD) {
                return false;
            }
            if (c.compareAndSet(v, v + 1)) {
                return true;
            }
        }
    }

    /** Drops a child; true when this emptied the node and marked it dead, so the caller must unlink it. */
    private static boolean drop(Object[] node) {
        AtomicInteger c = count(node);
        return c.decrementAndGet() == 0 && c.compareAndSet(0, DEAD);
    }

    /** Removes a dead node from its parent; true for the one caller that did (and so drops the parent's count). */
    private boolean unlink(Object[] parent, int index, Object[] dead) {
        if (SLOT.compareAndSet(parent, index, dead, null)) {
            allocatedNodes.decrementAndGet();
            return true;
        }
        return false;
    }

    private void unpinLeaf(Object[] leaf, Object[] mid, int mi, int ri) {
        if (drop(leaf) && unlink(mid, mi, leaf)) {
            unpinMid(mid, ri);
        }
    }

    private void unpinMid(Object[] mid, int ri) {
        if (drop(mid)) {
            unlink(root, ri, mid); // the root has no count
        }
    }

    /** Frees page {@code pi} if allocated, and the nodes it leaves empty. */
    private void free(long pi) {
        int ri = rootIndex(pi);
        int mi = midIndex(pi);
        Object[] mid = node(SLOT.getAcquire(root, ri));
        if (mid == null) {
            return;
        }
        Object[] leaf = node(SLOT.getAcquire(mid, mi));
        if (leaf == null) {
            return;
        }
        if (SLOT.getAndSet(leaf, leafIndex(pi), null) != null) {
            allocatedPages.decrementAndGet();
            unreserve(1);
            unpinLeaf(leaf, mid, mi, ri); // a leaf with a page was linked in mid, which was linked in the root
        }
    }

    /** The first page in [pi, limit) that is allocated, or {@code limit}: skips absent subtrees whole. */
    private long nextAllocated(long pi, long limit) {
        while (pi < limit) {
            Object[] mid = node(SLOT.getAcquire(root, rootIndex(pi)));
            if (mid == null) {
                pi = ((pi >>> 2 * LEVEL_BITS) + 1) << 2 * LEVEL_BITS;
                continue;
            }
            Object[] leaf = node(SLOT.getAcquire(mid, midIndex(pi)));
            if (leaf == null) {
                pi = ((pi >>> LEVEL_BITS) + 1) << LEVEL_BITS;
                continue;
            }
            if (SLOT.getAcquire(leaf, leafIndex(pi)) != null) {
                return pi;
            }
            pi++;
        }
        return limit;
    }

    @Override
    public void flush() {}

    @Override
    public boolean supportsUnmap() { return true; }

    @Override
    public boolean unmapReturnsZeros() { return true; }

    @Override
    public void unmap(long lba, long blocks) {
        forAllocated(lba, blocks, true);
    }

    @Override
    public void writeZeros(long lba, long blocks) {
        forAllocated(lba, blocks, false); // zeros in an unallocated page are already there
    }

    /** Frees (whole pages, when {@code free}) or zeroes the allocated parts of [lba, lba + blocks). */
    private void forAllocated(long lba, long blocks, boolean free) {
        long pos = lba * blockSize;
        long end = (lba + blocks) * blockSize;
        long endPage = (end + PAGE_SIZE - 1) >>> PAGE_SHIFT;
        while (pos < end) {
            long pi = nextAllocated(pos >>> PAGE_SHIFT, endPage);
            if (pi == endPage) {
                return;
            }
            pos = Math.max(pos, pi << PAGE_SHIFT);
            int off = (int) pos & (PAGE_SIZE - 1);
            int n = (int) Math.min(end - pos, PAGE_SIZE - off);
            if (free && off == 0 && (n == PAGE_SIZE || pos + n >= blockCount * blockSize)) {
                free(pi); // the last page may be shorter than PAGE_SIZE
            } else {
                byte[] p = lookup(pi);
                if (p != null) {
                    Arrays.fill(p, off, off + n, (byte) 0);
                }
            }
            pos += n;
        }
    }

    @Override
    public long provisioningRun(long lba, long maxBlocks) {
        long endBlock = lba + Math.min(maxBlocks, blockCount - lba);
        long endPage = (endBlock + pageBlocks - 1) / pageBlocks;
        long pi = lba / pageBlocks;
        boolean mapped = lookup(pi) != null;
        long next = pi + 1;
        if (mapped) {
            while (next < endPage && lookup(next) != null) {
                next++;
            }
        } else {
            next = nextAllocated(next, endPage);
        }
        long run = Math.min(endBlock, next * pageBlocks) - lba;
        return mapped ? run : -run;
    }

    @Override
    public String describe() {
        return "ram " + blockCount * blockSize + " bytes, " + blockSize + "-byte blocks";
    }

    /** Drops every page and gives the budget back: the pages held (thin) or the reservation (thick). */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        Arrays.fill(root, null);
        long pages = allocatedPages.getAndSet(0);
        allocatedNodes.set(0);
        if (thick) {
            budget.release(pageCount * PAGE_SIZE);
        } else {
            unreserve(pages);
        }
    }
}
