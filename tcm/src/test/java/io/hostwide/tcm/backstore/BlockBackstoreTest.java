package io.hostwide.tcm.backstore;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The block backstore on real loop devices (attached and detached by each test): what sysfs says reaches the
 * backstore, data round-trips under O_DIRECT whatever the buffer's alignment, UNMAP discards (the loop driver
 * punches holes in its file, so the blocks read as zeros and the file loses their allocation), WRITE SAME of zeros
 * is zeroed in the kernel, SYNCHRONIZE CACHE reaches the file, and a device is exported only once.
 */
class BlockBackstoreTest {
    private static final long SIZE = 16L << 20;

    @Test
    void sizeBlockSizesAndRotationComeFromSysfsEvenThroughASymlink(@TempDir Path dir) throws Exception {
        try (LoopDevice loop = LoopDevice.attach(dir, SIZE, 4096)) {
            Path link = Files.createSymbolicLink(dir.resolve("by-id-style-link"), loop.device);
            BlockDevice d = BlockDevice.probe(link);
            assertThat(d.sysfsName()).isEqualTo(loop.sysfsName());
            assertThat(d.devNode()).isEqualTo(loop.device);
            assertThat(d.sizeBytes()).isEqualTo(SIZE);
            assertThat(d.logicalBlockSize()).isEqualTo(4096);
            assertThat(d.physicalBlockSize()).isEqualTo(sysfsInt(loop, "physical_block_size"));
            assertThat(d.rotational()).isEqualTo(sysfsInt(loop, "rotational") == 1);
            assertThat(d.discardMaxBytes()).isEqualTo(Long.parseLong(sysfs(loop, "discard_max_bytes")));
            assertThat(d.mountedAt()).isEmpty();
            try (BlockBackstore b = new BlockBackstore(link, BlockBackstore.Options.DEFAULT)) {
                assertThat(b.blockSize()).isEqualTo(4096);
                assertThat(b.blockCount()).isEqualTo(SIZE / 4096);
                assertThat(b.blocking()).isTrue();
                assertThat(b.describe()).contains("block " + link, loop.device.toString());
                assertThat(b.direct()).isEqualTo(BlockBackstore.directProblem(d) == null);
            }
        }
    }

    /** Heap, aligned direct and unaligned direct buffers (the last bounced) all round-trip under O_DIRECT. */
    @Test
    void dataRoundTripsUnderODirectWhateverTheBufferAlignment(@TempDir Path dir) throws Exception {
        try (LoopDevice loop = LoopDevice.attach(dir, SIZE, 4096);
             BlockBackstore b = new BlockBackstore(loop.device, BlockBackstore.Options.DEFAULT)) {
            ByteBuffer heap = pattern(ByteBuffer.allocate(3 * 4096), 1);
            ByteBuffer aligned = pattern(ByteBuffer.allocateDirect(5 * 4096).alignedSlice(4096).limit(2 * 4096), 2);
            ByteBuffer unaligned = pattern(ByteBuffer.allocateDirect(4 * 4096 + 1).position(1).slice()
                    .limit(4 * 4096), 3);
            assertThat(unaligned.alignmentOffset(0, 4096)).isNotZero();
            b.write(0, heap.duplicate(), false);
            b.write(10, aligned.duplicate(), true);
            b.write(100, unaligned.duplicate(), false);
            b.flush();
            assertThat(read(b, 0, 3)).isEqualTo(heap.rewind());
            assertThat(read(b, 10, 2)).isEqualTo(aligned.rewind());
            ByteBuffer back = ByteBuffer.allocateDirect(4 * 4096 + 7).position(7).slice().limit(4 * 4096);
            b.read(100, back);
            assertThat(back.flip()).isEqualTo(unaligned.rewind());
            // and the bytes are where SCSI put them on the device, not in some cache of ours
            assertThat(fileBytes(loop.file, 100L * 4096, 4 * 4096)).isEqualTo(unaligned.rewind());
        }
    }

    /**
     * Regression (found serving a 512-byte-sector loop device): the JDK aligns O_DIRECT transfers to the block size
     * of the filesystem holding the device node (devtmpfs, 4096), so every 4 KiB-unaligned transfer failed with
     * "not a multiple of the block size". Where the JDK's alignment exceeds the logical block, the page cache is
     * used and said so; an explicit requirement of O_DIRECT is refused with the reason.
     */
    @Test
    void unalignedTransfersWorkWhereTheJdkCannotDoODirectForTheBlockSize(@TempDir Path dir) throws Exception {
        try (LoopDevice loop = LoopDevice.attach(dir, SIZE, 512)) {
            BlockDevice d = BlockDevice.probe(loop.device);
            String problem = BlockBackstore.directProblem(d);
            try (BlockBackstore b = new BlockBackstore(loop.device, BlockBackstore.Options.DEFAULT)) {
                assertThat(b.direct()).isEqualTo(problem == null);
                if (problem != null) {
                    assertThat(b.describe()).contains("page cache (no O_DIRECT: " + problem + ")");
                }
                // 3 blocks at LBA 1 from a direct buffer on a 512-byte (not 4096-byte) boundary
                ByteBuffer src = pattern(ByteBuffer.allocateDirect(8192 + 3 * 512).alignedSlice(4096).position(512)
                        .slice().limit(3 * 512), 11);
                b.write(1, src.duplicate(), true);
                ByteBuffer back = ByteBuffer.allocateDirect(8192).alignedSlice(4096).position(1536).slice()
                        .limit(3 * 512);
                b.read(1, back);
                assertThat(back.flip()).isEqualTo(src.rewind());
                assertThat(fileBytes(loop.file, 512, 3 * 512)).isEqualTo(src.rewind());
            }
            if (problem != null) {
                assertThatThrownBy(() -> new BlockBackstore(loop.device, new BlockBackstore.Options(true, true, true)))
                        .isInstanceOf(IOException.class)
                        .hasMessageContaining("cannot use O_DIRECT: " + problem);
            }
        }
    }

    @Test
    void unmapDiscardsSoTheBlocksReadZeroAndTheLoopFileGetsAHole(@TempDir Path dir) throws Exception {
        try (LoopDevice loop = LoopDevice.attach(dir, SIZE, 0);
             BlockBackstore b = new BlockBackstore(loop.device, BlockBackstore.Options.DEFAULT)) {
            assumeTrue(BlockBackstore.NativeLoader.unavailable() == null,
                    () -> "BLKDISCARD needs Java 22+: " + BlockBackstore.NativeLoader.unavailable());
            assertThat(b.supportsUnmap()).as("loop devices discard").isTrue();
            assertThat(b.unmapReturnsZeros()).as("LBPRZ: Linux does not promise zeros after a discard").isFalse();
            long first = 2048; // 1 MiB in, 1 MiB long: whole filesystem blocks of the backing file
            int blocks = 2048;
            b.write(first, pattern(ByteBuffer.allocate(blocks * 512), 7), false);
            b.flush();
            long at = first * 512;
            assertThat(nextData(loop.file, at)).as("written blocks are allocated").isEqualTo(at);

            b.unmap(first, blocks);

            assertThat(read(b, first, blocks)).isEqualTo(ByteBuffer.allocate(blocks * 512));
            assertThat(nextData(loop.file, at)).as("the discard punched the loop file").isGreaterThanOrEqualTo(
                    at + (long) blocks * 512);
        }
    }

    @Test
    void writeSameOfZerosIsZeroedInTheKernel(@TempDir Path dir) throws Exception {
        try (LoopDevice loop = LoopDevice.attach(dir, SIZE, 0);
             BlockBackstore b = new BlockBackstore(loop.device, BlockBackstore.Options.DEFAULT)) {
            b.write(0, pattern(ByteBuffer.allocate(64 * 512), 9), false);
            b.writeZeros(8, 32);
            ByteBuffer got = read(b, 0, 64);
            assertThat(got.slice(0, 8 * 512)).isEqualTo(pattern(ByteBuffer.allocate(64 * 512), 9).slice(0, 8 * 512));
            assertThat(got.slice(8 * 512, 32 * 512)).isEqualTo(ByteBuffer.allocate(32 * 512));
            assertThat(got.slice(40 * 512, 24 * 512))
                    .isEqualTo(pattern(ByteBuffer.allocate(64 * 512), 9).slice(40 * 512, 24 * 512));
        }
    }

    /** Without the ioctls (Java 21) UNMAP is not offered, so the VPD page says so; zeros are still written. */
    @Test
    void withoutIoctlsUnmapIsNotOfferedAndZerosAreWritten(@TempDir Path dir) throws Exception {
        try (LoopDevice loop = LoopDevice.attach(dir, SIZE, 0);
             BlockBackstore b = new BlockBackstore(BlockDevice.probe(loop.device), BlockBackstore.Options.DEFAULT,
                     false)) {
            assertThat(b.supportsUnmap()).isFalse();
            assertThat(b.describe()).contains("no UNMAP");
            b.write(0, pattern(ByteBuffer.allocate(16 * 512), 4), false);
            b.unmap(0, 16); // what SANITIZE asks for whatever UNMAP support says
            assertThat(read(b, 0, 16)).isEqualTo(ByteBuffer.allocate(16 * 512));
        }
    }

    @Test
    void aThickOptionNeverOffersUnmap(@TempDir Path dir) throws Exception {
        try (LoopDevice loop = LoopDevice.attach(dir, SIZE, 0);
             BlockBackstore b = new BlockBackstore(loop.device, new BlockBackstore.Options(false, false))) {
            assertThat(b.supportsUnmap()).isFalse();
            assertThat(b.direct()).isFalse();
            assertThat(b.describe()).endsWith(", page cache");
            b.write(3, pattern(ByteBuffer.allocate(512), 5), true); // buffered, FUA: fdatasync
            assertThat(fileBytes(loop.file, 3 * 512, 512)).isEqualTo(pattern(ByteBuffer.allocate(512), 5));
        }
    }

    /** The exclusive open: a device already exported (or mounted, or held by dm) is refused, not shared. */
    @Test
    void aDeviceInUseIsRefused(@TempDir Path dir) throws Exception {
        try (LoopDevice loop = LoopDevice.attach(dir, SIZE, 0);
             BlockBackstore first = new BlockBackstore(loop.device, BlockBackstore.Options.DEFAULT)) {
            assumeTrue(BlockBackstore.NativeLoader.unavailable() == null, "the exclusive open needs Java 22+");
            assertThat(first.blockCount()).isPositive();
            assertThatThrownBy(() -> new BlockBackstore(loop.device, BlockBackstore.Options.DEFAULT))
                    .isInstanceOf(DeviceBusyException.class)
                    .hasMessageContaining(loop.device + " is in use");
        }
    }

    @Test
    void aRegularFileOrAMissingPathIsNotABlockDevice(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("plain.img"), "x");
        assertThatThrownBy(() -> BlockDevice.probe(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(file + " is a regular file (use \"type\": \"file\" for image files)");
        assertThatThrownBy(() -> BlockDevice.probe(dir)).hasMessage(dir + " is a directory");
        assertThatThrownBy(() -> BlockDevice.probe(dir.resolve("nope"))).isInstanceOf(NoSuchFileException.class);
        assertThat(BlockDevice.isBlockDevice(file)).isFalse();
        assertThat(BlockDevice.isBlockDevice(Path.of("/dev/null"))).isFalse(); // a character device
    }

    /** glibc's encoding of dev_t, including majors and minors past 8 bits. */
    @Test
    void majorAndMinorDecodeAsGlibcDoes() {
        assertThat(BlockDevice.major(0x0700L)).isEqualTo(7);
        assertThat(BlockDevice.minor(0x0703L)).isEqualTo(3);
        long dev = ((259L & 0xfff) << 8) | (0x12345L & 0xff) | ((0x12345L & ~0xffL) << 12);
        assertThat(BlockDevice.major(dev)).isEqualTo(259);
        assertThat(BlockDevice.minor(dev)).isEqualTo(0x12345);
    }

    private static ByteBuffer pattern(ByteBuffer b, int seed) {
        for (int i = b.position(); i < b.limit(); i++) {
            b.put(i, (byte) (i * 31 + seed));
        }
        return b;
    }

    private static ByteBuffer read(BlockBackstore b, long lba, int blocks) throws IOException {
        ByteBuffer dst = ByteBuffer.allocate(blocks * b.blockSize());
        b.read(lba, dst);
        return dst.flip();
    }

    private static ByteBuffer fileBytes(Path file, long pos, int n) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(n);
            while (b.hasRemaining() && ch.read(b, pos + b.position()) >= 0) {
                // positional reads until full
            }
            return b.flip();
        }
    }

    private static long nextData(Path file, long pos) throws IOException {
        try (FileHoles h = FileAccess.NativeLoader.open(file)) {
            assumeTrue(h.tracksAllocation(), () -> "no SEEK_DATA here: " + h.describe());
            return h.nextData(pos);
        }
    }

    private static String sysfs(LoopDevice loop, String attr) throws IOException {
        return Files.readString(Path.of("/sys/class/block", loop.sysfsName(), "queue", attr)).trim();
    }

    private static int sysfsInt(LoopDevice loop, String attr) throws IOException {
        return Integer.parseInt(sysfs(loop, attr));
    }
}
