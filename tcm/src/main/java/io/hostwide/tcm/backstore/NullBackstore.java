package io.hostwide.tcm.backstore;

import io.hostwide.tcm.spi.Backstore;

import java.nio.ByteBuffer;

/**
 * Storage that keeps nothing, for benchmarks of the core and fabrics (null_blk's role): writes are discarded and
 * reads return zeros (never stale buffer contents). Every block reports mapped.
 */
public final class NullBackstore implements Backstore {
    private final int blockSize;
    private volatile long blockCount; // resize: read by every command's range check

    public NullBackstore(long sizeBytes, int blockSize) {
        if (blockSize < 512 || Integer.bitCount(blockSize) != 1 || sizeBytes < blockSize) {
            throw new IllegalArgumentException("bad geometry: " + sizeBytes + "/" + blockSize);
        }
        this.blockSize = blockSize;
        this.blockCount = sizeBytes / blockSize;
    }

    @Override
    public int blockSize() { return blockSize; }

    @Override
    public void resize(long sizeBytes) {
        if (sizeBytes < blockSize) {
            throw new IllegalArgumentException("size " + sizeBytes + " is less than one " + blockSize + "-byte block");
        }
        blockCount = sizeBytes / blockSize;
    }

    @Override
    public long blockCount() { return blockCount; }

    @Override
    public boolean blocking() { return false; }

    @Override
    public void read(long lba, ByteBuffer dst) {
        int p = dst.position();
        int end = dst.limit();
        while (p + 8 <= end) {
            dst.putLong(p, 0L);
            p += 8;
        }
        while (p < end) {
            dst.put(p++, (byte) 0);
        }
        dst.position(end);
    }

    @Override
    public void write(long lba, ByteBuffer src, boolean fua) { src.position(src.limit()); }

    @Override
    public void flush() {}

    @Override
    public boolean supportsUnmap() { return false; }

    @Override
    public boolean unmapReturnsZeros() { return true; }

    @Override
    public void unmap(long lba, long blocks) {}

    @Override
    public long provisioningRun(long lba, long maxBlocks) { return Math.min(maxBlocks, blockCount - lba); }

    @Override
    public void writeZeros(long lba, long blocks) {}

    @Override
    public String describe() { return "null " + blockCount * blockSize + " bytes, " + blockSize + "-byte blocks"; }

    @Override
    public void close() {}
}
