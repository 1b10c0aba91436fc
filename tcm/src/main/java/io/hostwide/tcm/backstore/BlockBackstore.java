package io.hostwide.tcm.backstore;

import io.hostwide.tcm.spi.Backstore;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A block device as storage (LIO's iblock): {@code /dev/sdX}, a zvol, an LV, a loop device. What a SCSI initiator
 * should see comes from the kernel ({@link BlockDevice}, sysfs): the capacity, the logical block size (which is
 * this backstore's block size: the device cannot address less), the physical block size, whether it rotates and
 * whether it discards. Data goes through one {@link FileChannel} with positional I/O, O_DIRECT by default where the
 * JDK allows it for the device's block size ({@link #directProblem}; the page cache would only double-buffer what
 * the initiator caches itself, and hide write errors until a flush).
 *
 * <p>UNMAP and WRITE SAME with UNMAP become {@code BLKDISCARD}, WRITE SAME of zeros {@code BLKZEROOUT} (the device
 * zeroes, no data crosses the bus), both through {@link BlockIoctls} on Java 22+. Linux no longer says whether a
 * discarded range reads as zeros (it removed {@code discard_zeroes_data}), so LBPRZ is 0 and UNMAP is offered only
 * when the device discards ({@code discard_max_bytes > 0}) and the ioctls are available; otherwise the LOGICAL
 * BLOCK PROVISIONING VPD page reports no unmap support rather than failing UNMAP commands. SYNCHRONIZE CACHE and
 * FUA are {@code fdatasync}, which on a block device also flushes the device's volatile cache.
 *
 * <p>Blocking: the core only calls it from the device's I/O queue. Thread safety: positional I/O needs no lock.
 */
public final class BlockBackstore implements Backstore {

    /**
     * How a block device is opened.
     *
     * @param direct        open with O_DIRECT where the JDK allows it (the default; see {@link #directProblem})
     * @param discard       offer UNMAP when the device discards (false: a thick LUN)
     * @param requireDirect refuse the device rather than fall back to the page cache (an explicit "direct": true)
     */
    public record Options(boolean direct, boolean discard, boolean requireDirect) {
        public static final Options DEFAULT = new Options(true, true, false);

        public Options(boolean direct, boolean discard) {
            this(direct, discard, false);
        }
    }

    private final BlockDevice device;
    private final BlockIoctls ioctls;
    private final FileChannel channel;
    private final AlignedIo io;
    private final int blockSize;
    private final long blockCount;
    private final boolean unmap;
    /** Why O_DIRECT was asked for but not used, or null. */
    private final String directProblem;

    public BlockBackstore(Path path, Options options) throws IOException {
        this(BlockDevice.probe(path), options, true);
    }

    /** @param nativeIoctls false forces the Java 21 behaviour (no discard, zeros written), for tests */
    BlockBackstore(BlockDevice device, Options options, boolean nativeIoctls) throws IOException {
        this.device = device;
        if (!device.mountedAt().isEmpty()) {
            throw new DeviceBusyException(device.path() + " is mounted on " + String.join(", ", device.mountedAt())
                    + ": refusing to export it");
        }
        this.blockSize = device.logicalBlockSize();
        this.blockCount = device.sizeBytes() / blockSize;
        if (blockCount == 0) {
            throw new IOException(device.path() + ": the device is empty (0 bytes)");
        }
        this.directProblem = options.direct() ? directProblem(device) : null;
        if (directProblem != null && options.requireDirect()) {
            throw new IOException(device.path() + ": cannot use O_DIRECT: " + directProblem
                    + "; leave \"direct\" out to use the page cache");
        }
        boolean direct = options.direct() && directProblem == null;
        this.ioctls = nativeIoctls ? NativeLoader.open(device.devNode())
                : new BlockIoctls.Unavailable("not requested");
        try {
            this.channel = openChannel(ioctls.sameFile(device.devNode()), direct);
        } catch (IOException | RuntimeException e) {
            ioctls.close();
            throw e;
        }
        this.io = new AlignedIo(channel, direct ? blockSize : 0);
        this.unmap = options.discard() && device.discards() && ioctls.available();
    }

    /**
     * Why O_DIRECT through a {@link FileChannel} cannot work on this device, or null when it can. The JDK checks
     * every O_DIRECT transfer (position, length and buffer address) against the block size of the filesystem the
     * path lies on, which for a device node is devtmpfs (4096 on x86-64), not the device's own logical block size.
     * A device with 512-byte logical blocks would then fail every transfer not aligned to 4 KiB, so it runs through
     * the page cache instead (still correct: SYNCHRONIZE CACHE and FUA fdatasync, which flushes both the page
     * cache and the device's cache), and {@link #describe()} says why.
     */
    static String directProblem(BlockDevice device) {
        if (FileAccess.DIRECT == null) {
            return "this Java runtime has no O_DIRECT open option (module jdk.unsupported)";
        }
        long jdk;
        try {
            jdk = java.nio.file.Files.getFileStore(device.devNode()).getBlockSize();
        } catch (IOException | UnsupportedOperationException e) {
            return "the block size the JDK checks O_DIRECT against is unknown (" + e.getMessage() + ")";
        }
        if (jdk > device.logicalBlockSize() || device.logicalBlockSize() % jdk != 0) {
            return "the JDK aligns O_DIRECT transfers to " + jdk + " bytes (the block size of the filesystem holding "
                    + device.devNode() + "), above the device's " + device.logicalBlockSize() + "-byte logical blocks";
        }
        return null;
    }

    private FileChannel openChannel(Path via, boolean direct) throws IOException {
        List<OpenOption> o = new ArrayList<>(List.of(StandardOpenOption.READ, StandardOpenOption.WRITE));
        if (direct) {
            if (FileAccess.DIRECT == null) {
                throw new IOException(device.path() + ": this Java runtime has no O_DIRECT open option "
                        + "(module jdk.unsupported); set \"direct\": false");
            }
            o.add(FileAccess.DIRECT);
        }
        return FileChannel.open(via, o.toArray(OpenOption[]::new));
    }

    /** True when the data channel uses O_DIRECT. */
    public boolean direct() { return io.alignment() != 0; }

    /** What sysfs said when the device was opened. */
    public BlockDevice device() { return device; }

    /** The unit in which the device discards, in logical blocks (OPTIMAL UNMAP GRANULARITY), at least 1. */
    public long unmapGranularityBlocks() { return Math.max(1, device.discardGranularity() / blockSize); }

    @Override
    public int blockSize() { return blockSize; }

    @Override
    public long blockCount() { return blockCount; }

    @Override
    public boolean blocking() { return true; }

    @Override
    public void read(long lba, ByteBuffer dst) throws IOException { io.read(lba * blockSize, dst); }

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
    public boolean supportsUnmap() { return unmap; }

    @Override
    public boolean unmapReturnsZeros() { return false; }

    /** BLKDISCARD; when UNMAP is not offered (SANITIZE may still ask), the range is zeroed instead. */
    @Override
    public void unmap(long lba, long blocks) throws IOException {
        if (unmap) {
            ioctls.discard(lba * blockSize, blocks * blockSize);
        } else {
            writeZeros(lba, blocks);
        }
    }

    /** BLKZEROOUT when available (the kernel uses the device's WRITE ZEROES, or writes zero pages itself). */
    @Override
    public void writeZeros(long lba, long blocks) throws IOException {
        if (ioctls.available()) {
            ioctls.zeroOut(lba * blockSize, blocks * blockSize);
        } else {
            Backstore.super.writeZeros(lba, blocks);
        }
    }

    /** A block device says nothing of its allocation: every block is "mapped or unknown" (SBC-4 §5.8). */
    @Override
    public long provisioningRun(long lba, long maxBlocks) {
        return Math.min(maxBlocks, blockCount - lba);
    }

    @Override
    public String describe() {
        return "block " + device.path() + (device.devNode().equals(device.path()) ? "" : " (" + device.devNode() + ")")
                + " " + blockCount * blockSize + " bytes, " + blockSize + "/" + device.physicalBlockSize()
                + "-byte blocks, " + (device.rotational() ? "rotational" : "non-rotational")
                + (unmap ? ", UNMAP discards" : ", no UNMAP" + (device.discards() ? " (" + ioctls.describe() + ")" : ""))
                + (io.alignment() != 0 ? ", O_DIRECT" : directProblem != null ? ", page cache (no O_DIRECT: "
                + directProblem + ")" : ", page cache");
    }

    @Override
    public void close() throws IOException {
        try {
            channel.close();
        } finally {
            ioctls.close();
        }
    }

    /** Loads NativeBlockIoctls (compiled for Java 22) only where it can work; otherwise says why not. */
    static final class NativeLoader {
        private NativeLoader() {}

        private static final Java22Native NATIVE =
                Java22Native.find("NativeBlockIoctls", BlockIoctls.class, "block ioctls");
        private static final MethodHandle OPEN = NATIVE.open();
        private static final String UNAVAILABLE = NATIVE.unavailable();

        /** Why the native ioctls are unavailable in this JVM, or null when they are available. */
        static String unavailable() { return UNAVAILABLE; }

        /** The native ioctls, or the unavailable ones saying why; a busy device is refused (never silently shared). */
        static BlockIoctls open(Path node) throws IOException {
            if (OPEN == null) {
                return new BlockIoctls.Unavailable(UNAVAILABLE);
            }
            try {
                return (BlockIoctls) OPEN.invoke(node);
            } catch (DeviceBusyException e) {
                throw e;
            } catch (IOException e) {
                throw e; // the device cannot be opened read-write: the channel would fail the same way
            } catch (RuntimeException | LinkageError e) { // e.g. IllegalCallerException: native access denied
                return new BlockIoctls.Unavailable("native access unavailable: " + e);
            } catch (Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }
    }
}
