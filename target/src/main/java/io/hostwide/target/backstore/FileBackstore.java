package io.hostwide.target.backstore;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A file (or block device node) as storage, through one {@link FileChannel} with positional I/O, so concurrent
 * commands need no lock. FUA and SYNCHRONIZE CACHE call {@code force(false)} (fdatasync). Blocking: the core only
 * calls it from the device's I/O queue.
 *
 * <p>UNMAP: Java has no fallocate(PUNCH_HOLE) and SEEK_HOLE/SEEK_DATA, so this backstore cannot deallocate. With
 * {@code unmapByZeroing} it accepts UNMAP by writing zeros (reads of unmapped blocks then return zeros, LBPRZ=1),
 * and GET LBA STATUS reports every block "mapped or unknown" (status 0), which is the truth: the blocks stay
 * allocated in the file. Without it the device is fully provisioned and UNMAP is not offered.
 */
public final class FileBackstore implements Backstore {
    private final Path path;
    private final FileChannel channel;
    private final int blockSize;
    private final long blockCount;
    private final boolean unmapByZeroing;

    /**
     * Opens (creating if absent) a file of {@code sizeBytes}; an existing larger file keeps its size. A size of 0
     * uses the existing file's size.
     */
    public FileBackstore(Path path, long sizeBytes, int blockSize, boolean unmapByZeroing) throws IOException {
        if (blockSize < 512 || Integer.bitCount(blockSize) != 1) {
            throw new IllegalArgumentException("block size must be a power of two >= 512: " + blockSize);
        }
        this.path = path;
        this.channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        long size = channel.size();
        if (sizeBytes > size) {
            channel.write(ByteBuffer.wrap(new byte[1]), sizeBytes - 1); // sparse extension where the filesystem allows
            size = sizeBytes;
        } else if (sizeBytes > 0) {
            size = sizeBytes;
        }
        if (size < blockSize) {
            channel.close();
            throw new IllegalArgumentException("file smaller than one block: " + path);
        }
        this.blockSize = blockSize;
        this.blockCount = size / blockSize;
        this.unmapByZeroing = unmapByZeroing;
    }

    @Override
    public int blockSize() { return blockSize; }

    @Override
    public long blockCount() { return blockCount; }

    @Override
    public boolean blocking() { return true; }

    @Override
    public void read(long lba, ByteBuffer dst) throws IOException {
        long pos = lba * blockSize;
        while (dst.hasRemaining()) {
            int n = channel.read(dst, pos);
            if (n < 0) { // beyond EOF of a file shorter than the device: zeros
                while (dst.hasRemaining()) {
                    dst.put((byte) 0);
                }
                return;
            }
            pos += n;
        }
    }

    @Override
    public void write(long lba, ByteBuffer src, boolean fua) throws IOException {
        long pos = lba * blockSize;
        while (src.hasRemaining()) {
            pos += channel.write(src, pos);
        }
        if (fua) {
            channel.force(false);
        }
    }

    @Override
    public void flush() throws IOException { channel.force(false); }

    @Override
    public boolean supportsUnmap() { return unmapByZeroing; }

    @Override
    public boolean unmapReturnsZeros() { return true; }

    @Override
    public void unmap(long lba, long blocks) throws IOException {
        if (unmapByZeroing) {
            writeZeros(lba, blocks);
        }
    }

    /** Every block is allocated as far as this backstore can tell: status 0, "mapped or unknown". */
    @Override
    public long provisioningRun(long lba, long maxBlocks) { return Math.min(maxBlocks, blockCount - lba); }

    @Override
    public String describe() { return "file " + path + " " + blockCount * blockSize + " bytes, " + blockSize + "-byte blocks"; }

    @Override
    public void close() throws IOException { channel.close(); }
}
