package io.hostwide.tcm.backstore;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * O_DIRECT file backstores: a filesystem that refuses O_DIRECT gets an error that says so, a logical block smaller
 * than the filesystem block is refused up front, and where O_DIRECT works data round-trips through heap, aligned
 * direct and unaligned direct buffers.
 */
class FileDirectTest {
    static final FileBackstore.Options DIRECT = FileBackstore.Options.of(true).direct(true);

    /** Fails every O_DIRECT open as Linux does on a filesystem without direct I/O (EINVAL from open(2)). */
    static final FileAccess.Opener REFUSES_DIRECT = (path, options) -> {
        if (Arrays.asList(options).contains(FileAccess.DIRECT)) {
            throw new FileSystemException(path.toString(), null, "Invalid argument");
        }
        return FileChannel.open(path, options);
    };

    static int fsBlock(Path dir) throws IOException {
        return (int) Files.getFileStore(dir).getBlockSize();
    }

    @Test
    void aFilesystemThatRefusesODirectGetsAClearError(@TempDir Path dir) {
        Path p = dir.resolve("lun.img");
        assertThatThrownBy(() -> new FileBackstore(p, 1 << 20, 4096, DIRECT, REFUSES_DIRECT))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("refuses O_DIRECT")
                .hasMessageContaining("Invalid argument")
                .hasMessageContaining("remove \"direct\"");
    }

    @Test
    void aFileThatCannotBeOpenedAtAllIsNotBlamedOnODirect(@TempDir Path dir) {
        Path p = dir.resolve("missing-dir").resolve("lun.img");
        assertThatThrownBy(() -> new FileBackstore(p, 1 << 20, 4096, DIRECT, REFUSES_DIRECT))
                .isInstanceOf(IOException.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("O_DIRECT"));
    }

    /** tmpfs refused O_DIRECT until Linux 6.6; newer kernels accept it. Either way the outcome is defined. */
    @Test
    void tmpfsEitherRefusesWithTheErrorOrWorks() throws IOException {
        Path shm = Path.of("/dev/shm");
        assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "no writable /dev/shm");
        Path p = Files.createTempFile(shm, "hostwide-direct", ".img");
        try {
            int bs = Math.max(4096, fsBlock(shm));
            FileBackstore f;
            try {
                f = new FileBackstore(p, 1 << 20, bs, DIRECT);
            } catch (IOException e) {
                assertThat(e).hasMessageContaining("refuses O_DIRECT").hasMessageContaining("tmpfs");
                return;
            }
            try (f) {
                roundTrip(f);
            }
        } finally {
            Files.deleteIfExists(p);
        }
    }

    @Test
    void aLogicalBlockSmallerThanTheFilesystemBlockIsRefused(@TempDir Path dir) throws IOException {
        assumeTrue(fsBlock(dir) > 512, "filesystem block is 512 bytes: every block size is aligned");
        Path p = dir.resolve("lun.img");
        try {
            new FileBackstore(p, 1 << 20, 512, DIRECT).close();
            throw new AssertionError("512-byte blocks accepted under O_DIRECT on " + fsBlock(dir) + "-byte blocks");
        } catch (IllegalArgumentException e) {
            assertThat(e).hasMessageContaining("multiple of the filesystem block size " + fsBlock(dir));
        } catch (IOException e) {
            assumeTrue(false, "O_DIRECT not supported here: " + e.getMessage());
        }
    }

    @Test
    void dataRoundTripsUnderODirect(@TempDir Path dir) throws IOException {
        int bs = Math.max(4096, fsBlock(dir));
        FileBackstore f;
        try {
            f = new FileBackstore(dir.resolve("lun.img"), 1 << 20, bs, DIRECT);
        } catch (IOException e) {
            assumeTrue(false, "the filesystem of " + dir + " refuses O_DIRECT: " + e.getMessage());
            return;
        }
        try (f) {
            assertThat(f.describe()).contains("O_DIRECT");
            roundTrip(f);
            f.unmap(2, 3); // deallocation works alongside O_DIRECT
            ByteBuffer z = ByteBuffer.allocate(3 * bs);
            f.read(2, z);
            assertThat(z.array()).containsOnly(0);
        }
    }

    /** Heap, aligned direct and deliberately misaligned direct buffers, with FUA and a flush. */
    static void roundTrip(FileBackstore f) throws IOException {
        int bs = f.blockSize();
        byte[] data = new byte[4 * bs];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7 + 3);
        }
        f.write(0, ByteBuffer.wrap(data), true);
        ByteBuffer odd = ByteBuffer.allocateDirect(4 * bs + 1).position(1).slice(); // address not aligned
        odd.put(data).flip();
        f.write(8, odd, false);
        assertThat(odd.hasRemaining()).isFalse();
        f.flush();

        ByteBuffer heap = ByteBuffer.allocate(4 * bs);
        f.read(8, heap);
        assertThat(heap.array()).isEqualTo(data);
        ByteBuffer aligned = ByteBuffer.allocateDirect(5 * bs).alignedSlice(bs).limit(4 * bs).slice();
        f.read(0, aligned);
        assertThat(aligned.position()).isEqualTo(4 * bs);
        byte[] back = new byte[4 * bs];
        aligned.flip().get(back);
        assertThat(back).isEqualTo(data);
        ByteBuffer odd2 = ByteBuffer.allocateDirect(4 * bs + 3).position(3).slice();
        f.read(8, odd2);
        odd2.flip().get(back);
        assertThat(back).isEqualTo(data);
    }
}
