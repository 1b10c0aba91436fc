package io.hostwide.tcm.backstore;

import io.hostwide.tcm.spi.Backstore;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A file (or block device node) as storage, through one {@link FileChannel} with positional I/O, so concurrent
 * commands need no lock. FUA and SYNCHRONIZE CACHE call {@code force(false)} (fdatasync). Blocking: the core only
 * calls it from the device's I/O queue.
 *
 * <p>Thin provisioning (SBC-4 §4.7). A thin file deallocates on UNMAP (and WRITE SAME with UNMAP) by punching
 * holes in whole filesystem blocks of the range and writing zeros to the unaligned edges, so every unmapped block
 * reads as zeros (LBPRZ = 1); GET LBA STATUS reports what SEEK_DATA/SEEK_HOLE say, a logical block being mapped
 * when any byte of it is allocated. That needs {@code NativeFileHoles} (Java 22+, Linux, a filesystem that punches);
 * otherwise ({@link FileHoles} explains which) UNMAP writes zeros and every block is reported "mapped or unknown",
 * which is the truth then. A thick file is never punched: UNMAP is not offered, and a deallocation the core asks
 * for anyway (SANITIZE) is written as zeros.
 *
 * <p>O_DIRECT ({@link Options#direct()}): the page cache is bypassed; positions and lengths must be multiples of
 * the filesystem block size, so the logical block size must be one too; {@link AlignedIo} bounces direct buffers
 * that are not aligned.
 */
public final class FileBackstore implements Backstore {
    /**
     * How a file backstore is opened.
     *
     * @param thin        thin provisioning: UNMAP accepted (deallocating where possible); false: never deallocated
     * @param direct      open with O_DIRECT
     * @param nativeHoles use native hole punching and SEEK_DATA/SEEK_HOLE when available (false forces the
     *                    portable fallback: zeros, everything reported mapped)
     * @param nowaitReads let the core read data that is in memory on the thread that received the command
     *                    ({@link #tryReadNow}) when available; false sends every read through the I/O queue
     * @param nowaitWrites let the core write on the thread that received the command ({@link #tryWriteNow}) where
     *                    that cannot block (needs {@code nowaitReads}' descriptor); false queues every write
     * @param nowaitWriteMax the largest write, in bytes, done on the receiving thread; larger ones go to the I/O
     *                    queue (default: no limit, see {@link #DEFAULT_NOWAIT_WRITE_MAX})
     */
    public record Options(boolean thin, boolean direct, boolean nativeHoles, boolean nowaitReads,
                          boolean nowaitWrites, int nowaitWriteMax) {
        public Options {
            if (nowaitWriteMax < 0) {
                throw new IllegalArgumentException("nowaitWriteMax must be >= 0 bytes: " + nowaitWriteMax);
            }
        }

        public static Options of(boolean thin) {
            return new Options(thin, false, true, true, true, DEFAULT_NOWAIT_WRITE_MAX);
        }

        public Options direct(boolean v) {
            return new Options(thin, v, nativeHoles, nowaitReads, nowaitWrites, nowaitWriteMax);
        }

        public Options nativeHoles(boolean v) {
            return new Options(thin, direct, v, nowaitReads, nowaitWrites, nowaitWriteMax);
        }

        public Options nowaitReads(boolean v) {
            return new Options(thin, direct, nativeHoles, v, nowaitWrites, nowaitWriteMax);
        }

        public Options nowaitWrites(boolean v) {
            return new Options(thin, direct, nativeHoles, nowaitReads, v, nowaitWriteMax);
        }

        public Options nowaitWriteMax(int bytes) {
            return new Options(thin, direct, nativeHoles, nowaitReads, nowaitWrites, bytes);
        }
    }

    /**
     * Writes up to this many bytes are done on the receiving thread, larger ones on the I/O queue (issue 13). By
     * default there is no limit. A 1 MiB pwritev into tmpfs costs the connection's thread about as much as receiving
     * the megabyte, so queueing large writes looked like it would let the thread receive meanwhile; a limit of
     * 256 KiB measured side by side with the inline path on a quiet machine (iscsi-vs-tgt.sh, 1 MiB sequential writes
     * at QD 4 and 16) was 0.74-0.83x of it on both clients: the hand-off to an I/O thread and back costs more than
     * the overlap gains. The limit stays as an option for storage where a large write can block longer.
     */
    public static final int DEFAULT_NOWAIT_WRITE_MAX = Integer.MAX_VALUE;

    private final Path path;
    private final FileAccess file;
    private final FileChannel channel;
    private final FileHoles holes;
    private final NowaitReads nowait;
    /** {@link Options#nowaitWrites}. */
    private final boolean nowaitWrites;
    /** {@link Options#nowaitWriteMax}. */
    private final int nowaitWriteMax;
    private final int blockSize;
    private volatile long blockCount; // resize: read by every command's range check
    private final boolean thin;
    /** O_DIRECT alignment in bytes, 0 without O_DIRECT. */
    private final int alignment;
    private final AlignedIo io;
    /** Bytes in which holes are punched: the filesystem block, at least one logical block. */
    private final int punchGranularity;

    /**
     * Opens (creating if absent) a file of {@code sizeBytes} (extended sparsely); an existing larger file keeps its
     * size. A size of 0 uses the existing file's size.
     */
    public FileBackstore(Path path, long sizeBytes, int blockSize, boolean thin) throws IOException {
        this(path, sizeBytes, blockSize, Options.of(thin));
    }

    public FileBackstore(Path path, long sizeBytes, int blockSize, Options options) throws IOException {
        this(path, sizeBytes, blockSize, options, FileAccess.DEFAULT_OPENER);
    }

    FileBackstore(Path path, long sizeBytes, int blockSize, Options options, FileAccess.Opener opener) throws IOException {
        this(path, sizeBytes, blockSize, options.thin(), options.nowaitWrites(), options.nowaitWriteMax(),
                open(path, blockSize, options, opener));
    }

    private static FileAccess open(Path path, int blockSize, Options options, FileAccess.Opener opener)
            throws IOException {
        if (blockSize < 512 || Integer.bitCount(blockSize) != 1) {
            throw new IllegalArgumentException("block size must be a power of two >= 512: " + blockSize);
        }
        return FileAccess.open(path, options.direct(), options.thin() && options.nativeHoles(), options.nowaitReads(),
                opener);
    }

    /** Over an already open file (tests substitute the {@link FileHoles}); closes it if the backstore is refused. */
    FileBackstore(Path path, long sizeBytes, int blockSize, boolean thin, FileAccess file) throws IOException {
        this(path, sizeBytes, blockSize, thin, false, 0, file);
    }

    private FileBackstore(Path path, long sizeBytes, int blockSize, boolean thin, boolean nowaitWrites,
            int nowaitWriteMax, FileAccess file) throws IOException {
        this.path = path;
        this.nowaitWrites = nowaitWrites;
        this.nowaitWriteMax = nowaitWriteMax;
        this.blockSize = blockSize;
        this.thin = thin;
        this.file = file;
        this.channel = file.channel();
        this.holes = file.holes();
        this.nowait = file.reads();
        this.alignment = file.directAlignment();
        try {
            if (alignment > blockSize) {
                throw new IllegalArgumentException(path + ": O_DIRECT needs block_size to be a multiple of the "
                        + "filesystem block size " + alignment + ", not " + blockSize);
            }
            this.blockCount = sized(sizeBytes) / blockSize;
            this.punchGranularity = Math.max(blockSize, filesystemBlock(path));
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
        this.io = new AlignedIo(channel, alignment);
    }

    /** Extends the file to {@code sizeBytes} when shorter (sparsely where the filesystem allows); the size in use. */
    private long sized(long sizeBytes) throws IOException {
        long size = channel.size();
        if (sizeBytes > size) {
            // ftruncate: allocates nothing (a thin file starts fully deallocated) and, unlike writing a last byte,
            // needs no aligned I/O under O_DIRECT
            try (RandomAccessFile raf = new RandomAccessFile(holes.sameFile(path).toFile(), "rw")) {
                raf.setLength(sizeBytes);
            }
            size = sizeBytes;
        } else if (sizeBytes > 0) {
            size = sizeBytes;
        }
        if (size < blockSize) {
            throw new IllegalArgumentException("file smaller than one block: " + path);
        }
        return size;
    }

    private static int filesystemBlock(Path path) {
        try {
            long b = Files.getFileStore(path).getBlockSize();
            return b > 0 && b <= (1 << 20) && Long.bitCount(b) == 1 ? (int) b : 4096;
        } catch (IOException | UnsupportedOperationException e) {
            return 4096; // only sets which whole blocks are punched; edges are zeroed whatever it is
        }
    }

    @Override
    public int blockSize() { return blockSize; }

    /**
     * Grows the file (sparsely) when it is shorter than {@code sizeBytes}; a smaller size only lowers the capacity
     * served and leaves the file's data past it in place, as opening an existing longer file with a smaller size does,
     * so a mistaken shrink loses nothing.
     */
    @Override
    public synchronized void resize(long sizeBytes) throws IOException {
        if (sizeBytes < blockSize) {
            throw new IllegalArgumentException("size " + sizeBytes + " is less than one " + blockSize + "-byte block");
        }
        blockCount = sized(sizeBytes) / blockSize;
    }

    @Override
    public long blockCount() { return blockCount; }

    @Override
    public boolean blocking() { return true; }

    /** True when UNMAP really deallocates (thin, native hole support, the filesystem punches holes). */
    public boolean deallocates() { return thin && holes.canPunch() && holes.tracksAllocation(); }

    /**
     * The unit in which UNMAP deallocates, in logical blocks (BLOCK LIMITS VPD OPTIMAL UNMAP GRANULARITY): the
     * filesystem block when holes are punched, else 1.
     */
    public int unmapGranularityBlocks() { return deallocates() ? punchGranularity / blockSize : 1; }

    @Override
    public void read(long lba, ByteBuffer dst) throws IOException { io.read(lba * blockSize, dst); }

    @Override
    public boolean readsNow() { return nowait.available(); }

    /**
     * From the page cache (or a tmpfs page) through this backstore's own descriptor, see {@code NativeNowaitReads};
     * a short read (part of the range not cached, or the file shortened behind our back) counts as a refusal, and
     * the I/O queue then reads the whole range through the channel.
     */
    @Override
    public boolean tryReadNow(long lba, ByteBuffer dst) throws IOException {
        int start = dst.position();
        int want = dst.remaining();
        if (nowait.read(lba * blockSize, dst) == want) {
            return true;
        }
        dst.position(start);
        return false;
    }

    @Override
    public boolean writesNow() { return nowaitWrites && nowait.available() && nowait.writesAvailable(); }

    /**
     * To the page cache (or a tmpfs page) through this backstore's own descriptor, see {@code NativeNowaitReads}:
     * plain on a memory filesystem, RWF_NOWAIT elsewhere. A short write counts as a refusal: the I/O queue then
     * writes the whole range again (the same bytes). FUA: on a memory filesystem the write is followed by the same
     * fdatasync {@link #write} does (nothing to wait for there); elsewhere fdatasync waits for the device, so a FUA
     * write is always left to the I/O queue and never acknowledged before it is durable. A write larger than
     * {@link Options#nowaitWriteMax} is left to the I/O queue too, before anything is written.
     */
    @Override
    public boolean tryWriteNow(long lba, ByteBuffer src, boolean fua) throws IOException {
        if (!nowaitWrites || src.remaining() > nowaitWriteMax || (fua && !nowait.inMemory())) {
            return false;
        }
        int start = src.position();
        int want = src.remaining();
        if (nowait.write(lba * blockSize, src) != want) {
            src.position(start);
            return false;
        }
        if (fua) {
            channel.force(false);
        }
        return true;
    }

    @Override
    public void write(long lba, ByteBuffer src, boolean fua) throws IOException {
        io.write(lba * blockSize, src);
        if (fua) {
            channel.force(false);
        }
    }

    @Override
    public void flush() throws IOException { channel.force(false); }

    @Override
    public boolean supportsUnmap() { return thin; }

    @Override
    public boolean unmapReturnsZeros() { return true; }

    /**
     * Punches the whole filesystem blocks of the range and zeroes the unaligned edges (SBC-4 §4.7.3.4.2, LBPRZ: a
     * deallocated block reads as zeros); writes zeros throughout when this file cannot deallocate. Thick files are
     * never punched.
     */
    @Override
    public void unmap(long lba, long blocks) throws IOException {
        if (thin && holes.canPunch()) {
            long start = lba * blockSize;
            long end = start + blocks * blockSize;
            long from = Math.ceilDiv(start, punchGranularity) * punchGranularity;
            long to = Math.floorDiv(end, punchGranularity) * punchGranularity;
            if (from < to && holes.punchHole(from, to - from)) {
                zeroBytes(start, from);
                zeroBytes(to, end);
                return;
            }
        }
        writeZeros(lba, blocks);
    }

    private void zeroBytes(long from, long to) throws IOException {
        if (from < to) {
            writeZeros(from / blockSize, (to - from) / blockSize);
        }
    }

    /**
     * From SEEK_DATA/SEEK_HOLE when the filesystem tracks allocation: a logical block is deallocated when none of
     * its bytes is data (a hole, or past the end of a shorter file). Otherwise every block is "mapped or unknown".
     */
    @Override
    public long provisioningRun(long lba, long maxBlocks) throws IOException {
        long limit = lba + Math.min(maxBlocks, blockCount - lba);
        if (!thin || !holes.tracksAllocation()) {
            return limit - lba;
        }
        long pos = lba * blockSize;
        long data = holes.nextData(pos);
        if (data >= pos + blockSize) { // NONE included
            long firstMapped = data == FileHoles.NONE ? limit : Math.min(limit, data / blockSize);
            return -(firstMapped - lba);
        }
        long at = data;
        while (true) {
            long hole = holes.nextHole(at);
            if (hole == FileHoles.NONE) {
                return limit - lba;
            }
            long holeBlock = Math.ceilDiv(hole, blockSize); // first block that may lie wholly in the hole
            if (holeBlock >= limit) {
                return limit - lba;
            }
            long next = holes.nextData(holeBlock * blockSize);
            if (next >= (holeBlock + 1) * blockSize) {
                return holeBlock - lba;
            }
            at = next; // the hole ended inside that block: it is mapped, keep going
        }
    }

    @Override
    public String describe() {
        String unmap = !thin ? "" : deallocates() ? ", UNMAP punches holes"
                : ", UNMAP writes zeros (" + holes.describe() + ")";
        return "file " + path + " " + blockCount * blockSize + " bytes, " + blockSize + "-byte blocks" + unmap
                + (alignment != 0 ? ", O_DIRECT" : "") + (nowait.available() ? ", " + nowait.describe() : "");
    }

    @Override
    public void close() throws IOException { file.close(); }
}
