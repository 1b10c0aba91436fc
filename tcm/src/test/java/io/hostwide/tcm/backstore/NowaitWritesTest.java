package io.hostwide.tcm.backstore;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The file backstore's non-blocking writes (issue 13, NativeNowaitReads' pwritev2): on tmpfs the bytes land inline,
 * FUA included (fdatasync has no device to wait for); on a disk filesystem a FUA write is never done inline, and a
 * plain one is done with RWF_NOWAIT where the filesystem takes it, else refused (EAGAIN, EOPNOTSUPP) with the buffer
 * untouched, so the queued write does it; nothing at all where the native side is absent or switched off.
 */
class NowaitWritesTest {
    static final int BS = 512;
    static final long SIZE = 4L << 20;

    private static boolean nativeAvailable() { return Runtime.version().feature() >= 22
            && System.getProperty("os.name", "").startsWith("Linux"); }

    private static Path tmpfsFile() throws IOException {
        Path shm = Path.of("/dev/shm");
        Assumptions.assumeTrue(Files.isDirectory(shm) && "tmpfs".equals(Files.getFileStore(shm).type()));
        return Files.createTempFile(shm, "hostwide-nowait-w-", ".img");
    }

    private static ByteBuffer direct(byte[] b) {
        return ByteBuffer.allocateDirect(b.length).put(b).flip();
    }

    private static byte[] read(FileBackstore f, long lba, int blocks) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(blocks * BS);
        f.read(lba, b);
        return b.array();
    }

    private static byte[] random(int bytes, long seed) {
        byte[] b = new byte[bytes];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void aTmpfsFileWritesInlineFuaIncluded() throws IOException {
        Assumptions.assumeTrue(nativeAvailable());
        Path p = tmpfsFile();
        try (FileBackstore f = new FileBackstore(p, SIZE, BS, false)) {
            assertThat(f.writesNow()).isTrue();
            assertThat(f.describe()).contains("reads and writes inline (memory filesystem)");
            Random r = new Random(3);
            for (int i = 0; i < 200; i++) {
                int blocks = 1 + r.nextInt(16);
                long lba = r.nextLong(SIZE / BS - blocks);
                byte[] data = random(blocks * BS, i);
                ByteBuffer src = direct(data);
                assertThat(f.tryWriteNow(lba, src, i % 3 == 0)).isTrue();
                assertThat(src.hasRemaining()).as("consumed").isFalse();
                assertThat(read(f, lba, blocks)).isEqualTo(data);
            }
        } finally {
            Files.deleteIfExists(p);
        }
    }

    /** Heap memory cannot be handed to pwritev2 without a copy: refused, the buffer untouched, nothing written. */
    @Test
    void aHeapBufferIsRefusedUntouched() throws IOException {
        Assumptions.assumeTrue(nativeAvailable());
        Path p = tmpfsFile();
        try (FileBackstore f = new FileBackstore(p, SIZE, BS, false)) {
            ByteBuffer heap = ByteBuffer.wrap(random(2 * BS, 5));
            assertThat(f.tryWriteNow(10, heap, false)).isFalse();
            assertThat(heap.position()).isZero();
            assertThat(read(f, 10, 2)).isEqualTo(new byte[2 * BS]);
        } finally {
            Files.deleteIfExists(p);
        }
    }

    /**
     * ext4/xfs under @TempDir: a FUA write is never done inline (fdatasync waits for the device; SBC-4 §5.43 wants
     * it durable before GOOD). A plain write is done with RWF_NOWAIT if the filesystem's buffered writes take it;
     * if they answer EOPNOTSUPP (ext4) writes switch off for good; either way a refusal leaves the buffer as it was
     * and the queued write then writes the same bytes.
     */
    @Test
    void aDiskFileNeverWritesFuaInlineAndFallsBackWhenRefused(@TempDir Path dir) throws IOException {
        Assumptions.assumeTrue(nativeAvailable());
        try (FileBackstore f = new FileBackstore(dir.resolve("disk.img"), SIZE, BS, false)) {
            Assumptions.assumeTrue(f.readsNow(), () -> "no native descriptor here: " + f.describe());
            Assumptions.assumeFalse(f.describe().contains("memory filesystem"), "the temp dir is on tmpfs");
            byte[] fuaData = random(4 * BS, 1);
            ByteBuffer fua = direct(fuaData);
            assertThat(f.tryWriteNow(8, fua, true)).as("FUA on a disk file").isFalse();
            assertThat(fua.position()).isZero();

            for (int i = 0; i < 20; i++) {
                byte[] data = random(4 * BS, 10 + i);
                ByteBuffer src = direct(data);
                long lba = 64 + 8L * i;
                if (f.tryWriteNow(lba, src, false)) {
                    assertThat(src.hasRemaining()).isFalse();
                } else {
                    assertThat(src.position()).as("a refusal leaves the buffer for the queued write").isZero();
                    f.write(lba, src, false);
                }
                assertThat(read(f, lba, 4)).isEqualTo(data);
            }
            if (!f.writesNow()) { // the filesystem answered EOPNOTSUPP (ext4 on Linux 6.18): off for good
                assertThat(f.tryWriteNow(0, direct(random(BS, 4)), false)).isFalse();
                assertThat(f.describe()).contains("writes queued (the filesystem refuses RWF_NOWAIT writes)");
            }
        }
    }

    @Test
    void switchedOffNeverWritesInline() throws IOException {
        Assumptions.assumeTrue(nativeAvailable());
        Path p = tmpfsFile();
        try (FileBackstore f = new FileBackstore(p, SIZE, BS, FileBackstore.Options.of(false).nowaitWrites(false))) {
            assertThat(f.readsNow()).isTrue();
            assertThat(f.writesNow()).isFalse();
            assertThat(f.tryWriteNow(0, direct(random(BS, 2)), false)).isFalse();
            assertThat(read(f, 0, 1)).isEqualTo(new byte[BS]);
        } finally {
            Files.deleteIfExists(p);
        }
    }

    /**
     * Writes larger than {@code nowaitWriteMax} are left to the I/O queue before a byte is written (issue 13: a 1 MiB
     * copy into tmpfs on the connection's thread stalls the next commands' Data-Out); up to it they are inline.
     */
    @Test
    void aWriteAboveTheLimitIsQueuedUntouched() throws IOException {
        Assumptions.assumeTrue(nativeAvailable());
        Path p = tmpfsFile();
        try (FileBackstore f = new FileBackstore(p, SIZE, BS, FileBackstore.Options.of(false).nowaitWriteMax(8 * BS))) {
            assertThat(f.writesNow()).as("smaller writes still go inline").isTrue();
            byte[] atLimit = random(8 * BS, 6);
            ByteBuffer ok = direct(atLimit);
            assertThat(f.tryWriteNow(0, ok, false)).isTrue();
            assertThat(ok.hasRemaining()).isFalse();
            assertThat(read(f, 0, 8)).isEqualTo(atLimit);

            ByteBuffer big = direct(random(8 * BS + BS, 7));
            assertThat(f.tryWriteNow(16, big, false)).isFalse();
            assertThat(big.position()).as("the queued write gets the whole buffer").isZero();
            assertThat(read(f, 16, 9)).as("nothing written").isEqualTo(new byte[9 * BS]);
            assertThat(f.writesNow()).as("a large write does not switch inline writes off").isTrue();
        } finally {
            Files.deleteIfExists(p);
        }
    }

    @Test
    void byDefaultEvenA1MiBWriteIsDoneInline() throws IOException {
        Assumptions.assumeTrue(nativeAvailable());
        Path p = tmpfsFile();
        try (FileBackstore f = new FileBackstore(p, SIZE, BS, false)) {
            assertThat(f.tryWriteNow(0, direct(random(64 << 10, 8)), false)).isTrue();
            assertThat(f.tryWriteNow(1024, direct(random(1 << 20, 9)), false)).isTrue();
        } finally {
            Files.deleteIfExists(p);
        }
    }

    @Test
    void aNegativeLimitIsRefused() {
        assertThatThrownBy(() -> FileBackstore.Options.of(true).nowaitWriteMax(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nowaitWriteMax");
    }

    /** Without the native descriptor (nowaitReads off, or Java 21) there is nothing to write through. */
    @Test
    void withoutTheNativeDescriptorNothingIsWrittenInline() throws IOException {
        Path p = Files.createTempFile("hostwide-nowait-w-", ".img");
        try (FileBackstore f = new FileBackstore(p, SIZE, BS, FileBackstore.Options.of(false).nowaitReads(false))) {
            assertThat(f.writesNow()).isFalse();
            assertThat(f.tryWriteNow(0, direct(random(BS, 3)), false)).isFalse();
        } finally {
            Files.deleteIfExists(p);
        }
    }
}
