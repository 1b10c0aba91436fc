package io.hostwide.tcm.backstore;

import io.hostwide.tcm.spi.Backstore;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Memory-backed storage, allocated lazily in pages: a page exists once a block in it was written, unmapping a whole
 * page frees it, and pages never written read as zeros. Provisioning state is therefore exact at page granularity
 * ({@link #pageBlocks()}, reported as the optimal unmap granularity); unmapping part of a page zeroes those blocks
 * and leaves the page mapped, which is what GET LBA STATUS then says. Never blocks: the core calls it inline.
 *
 * <p>Concurrency: pages are installed with a CAS and read with plain volatile loads; data copies into a page are
 * not atomic with respect to overlapping writes (SCSI does not require it; the core's range lock serialises the
 * commands that must be atomic).
 */
public final class RamBackstore implements Backstore {
    /** Bytes per page (64 KiB). */
    public static final int PAGE_SIZE = 64 * 1024;

    private final int blockSize;
    private final long blockCount;
    private final int pageBlocks;
    private final AtomicReferenceArray<byte[]> pages;
    private final AtomicLong allocatedPages = new AtomicLong();

    public RamBackstore(long sizeBytes, int blockSize) {
        if (blockSize < 512 || blockSize > PAGE_SIZE || Integer.bitCount(blockSize) != 1) {
            throw new IllegalArgumentException("block size must be a power of two in 512.." + PAGE_SIZE + ": " + blockSize);
        }
        long pagesNeeded = (sizeBytes + PAGE_SIZE - 1) / PAGE_SIZE;
        if (sizeBytes < blockSize || pagesNeeded > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("size out of range: " + sizeBytes);
        }
        this.blockSize = blockSize;
        this.blockCount = sizeBytes / blockSize;
        this.pageBlocks = PAGE_SIZE / blockSize;
        this.pages = new AtomicReferenceArray<>((int) pagesNeeded);
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

    @Override
    public void read(long lba, ByteBuffer dst) {
        long pos = lba * blockSize;
        while (dst.hasRemaining()) {
            int pi = (int) (pos / PAGE_SIZE);
            int off = (int) (pos % PAGE_SIZE);
            int n = Math.min(dst.remaining(), PAGE_SIZE - off);
            byte[] page = pages.get(pi);
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

    @Override
    public void write(long lba, ByteBuffer src, boolean fua) {
        long pos = lba * blockSize;
        while (src.hasRemaining()) {
            int pi = (int) (pos / PAGE_SIZE);
            int off = (int) (pos % PAGE_SIZE);
            int n = Math.min(src.remaining(), PAGE_SIZE - off);
            src.get(page(pi), off, n);
            pos += n;
        }
    }

    private byte[] page(int pi) {
        byte[] p = pages.get(pi);
        if (p == null) {
            byte[] fresh = new byte[PAGE_SIZE];
            if (pages.compareAndSet(pi, null, fresh)) {
                allocatedPages.incrementAndGet();
                return fresh;
            }
            p = pages.get(pi);
        }
        return p;
    }

    @Override
    public void flush() {}

    @Override
    public boolean supportsUnmap() { return true; }

    @Override
    public boolean unmapReturnsZeros() { return true; }

    @Override
    public void unmap(long lba, long blocks) {
        long pos = lba * blockSize;
        long end = (lba + blocks) * blockSize;
        while (pos < end) {
            int pi = (int) (pos / PAGE_SIZE);
            int off = (int) (pos % PAGE_SIZE);
            int n = (int) Math.min(end - pos, PAGE_SIZE - off);
            if (off == 0 && n == PAGE_SIZE || lastPartialPage(pi, off, n)) {
                if (pages.getAndSet(pi, null) != null) {
                    allocatedPages.decrementAndGet();
                }
            } else {
                byte[] p = pages.get(pi);
                if (p != null) {
                    java.util.Arrays.fill(p, off, off + n, (byte) 0);
                }
            }
            pos += n;
        }
    }

    /** The last page may be shorter than PAGE_SIZE when the capacity is not a multiple of it. */
    private boolean lastPartialPage(int pi, int off, int n) {
        return pi == pages.length() - 1 && off == 0 && (long) pi * PAGE_SIZE + n >= blockCount * blockSize;
    }

    @Override
    public void writeZeros(long lba, long blocks) {
        long pos = lba * blockSize;
        long end = (lba + blocks) * blockSize;
        while (pos < end) {
            int pi = (int) (pos / PAGE_SIZE);
            int off = (int) (pos % PAGE_SIZE);
            int n = (int) Math.min(end - pos, PAGE_SIZE - off);
            byte[] p = pages.get(pi);
            if (p != null) { // zeros in an unallocated page are already there
                java.util.Arrays.fill(p, off, off + n, (byte) 0);
            }
            pos += n;
        }
    }

    @Override
    public long provisioningRun(long lba, long maxBlocks) {
        int pi = (int) (lba / pageBlocks);
        boolean mapped = pages.get(pi) != null;
        long run = Math.min(maxBlocks, (long) (pi + 1) * pageBlocks - lba);
        for (int i = pi + 1; run < maxBlocks && i < pages.length() && (pages.get(i) != null) == mapped; i++) {
            run = Math.min(maxBlocks, run + pageBlocks);
        }
        run = Math.min(run, blockCount - lba);
        return mapped ? run : -run;
    }

    @Override
    public String describe() { return "ram " + blockCount * blockSize + " bytes, " + blockSize + "-byte blocks"; }

    @Override
    public void close() {
        for (int i = 0; i < pages.length(); i++) {
            pages.set(i, null);
        }
        allocatedPages.set(0);
    }
}
