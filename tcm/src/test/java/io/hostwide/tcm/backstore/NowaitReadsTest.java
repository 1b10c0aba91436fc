package io.hostwide.tcm.backstore;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The file backstore's non-blocking reads (issue 13, NativeNowaitReads): the same bytes as the blocking read where
 * the data is in memory, a refusal (never a wait, never partial data) where it is not, and the plain queued path
 * wherever the native side is not available.
 */
class NowaitReadsTest {
    static final int BS = 512;
    static final long SIZE = 4L << 20;

    private static boolean nativeAvailable() { return Runtime.version().feature() >= 22
            && System.getProperty("os.name", "").startsWith("Linux"); }

    /** ext4/xfs under @TempDir: pages just written are in the page cache, so RWF_NOWAIT reads them. */
    @Test
    void cachedPagesReadNowWithTheSameBytesAsTheQueuedRead(@TempDir Path dir) throws IOException {
        Assumptions.assumeTrue(nativeAvailable());
        try (FileBackstore f = new FileBackstore(dir.resolve("cached.img"), SIZE, BS, false)) {
            Assumptions.assumeTrue(f.readsNow(), () -> "no non-blocking reads here: " + f.describe());
            assertThat(f.describe()).contains("reads ");
            byte[] all = fill(f, 1);
            assertSameAsQueued(f, all, new Random(7));
        }
    }

    /** tmpfs refuses RWF_NOWAIT (EOPNOTSUPP) but holds every page in memory: read inline all the same. */
    @Test
    void aTmpfsFileReadsInline() throws IOException {
        Assumptions.assumeTrue(nativeAvailable());
        Path shm = Path.of("/dev/shm");
        Assumptions.assumeTrue(Files.isDirectory(shm) && "tmpfs".equals(Files.getFileStore(shm).type()));
        Path p = Files.createTempFile(shm, "hostwide-nowait-", ".img");
        try (FileBackstore f = new FileBackstore(p, SIZE, BS, false)) {
            assertThat(f.readsNow()).isTrue();
            assertThat(f.describe()).contains("memory filesystem");
            byte[] all = fill(f, 2);
            assertSameAsQueued(f, all, new Random(8));
            ByteBuffer hole = ByteBuffer.allocateDirect(8 * BS); // never written: tmpfs reads zeros from memory
            assertThat(f.tryReadNow((SIZE / BS) - 8, hole)).isTrue();
            assertThat(hole.position()).isEqualTo(8 * BS);
        } finally {
            Files.deleteIfExists(p);
        }
    }

    /**
     * Pages dropped from the page cache (POSIX_FADV_DONTNEED, through GNU dd's nocache flag) would have to come
     * from the disk: the attempt refuses without touching the buffer; once the queued read has brought them back,
     * it succeeds.
     */
    @Test
    void uncachedPagesAreRefusedUntilTheQueuedReadCachesThem(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(nativeAvailable());
        Path p = dir.resolve("cold.img");
        try (FileBackstore f = new FileBackstore(p, SIZE, BS, false)) {
            Assumptions.assumeTrue(f.readsNow() && f.describe().contains("RWF_NOWAIT"),
                    () -> "RWF_NOWAIT not offered here: " + f.describe());
            byte[] all = fill(f, 3);
            f.flush(); // DONTNEED drops clean pages only
            Assumptions.assumeTrue(dropCache(p), "dd iflag=nocache unavailable");
            ByteBuffer dst = ByteBuffer.allocateDirect(8 * BS);
            dst.position(BS).limit(BS + 4 * BS);
            assertThat(f.tryReadNow(1000, dst)).as("uncached: EAGAIN").isFalse();
            assertThat(dst.position()).isEqualTo(BS);

            ByteBuffer queued = ByteBuffer.allocateDirect(4 * BS);
            f.read(1000, queued);
            ByteBuffer now = ByteBuffer.allocateDirect(4 * BS);
            assertThat(f.tryReadNow(1000, now)).as("cached again").isTrue();
            assertThat(bytes(now)).isEqualTo(bytes(queued)).isEqualTo(slice(all, 1000, 4));
        }
    }

    /** A range only partly cached is a short read: refused as a whole, the buffer left as it was. */
    @Test
    void aPartlyCachedRangeIsRefusedWhole(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(nativeAvailable());
        Path p = dir.resolve("partly.img");
        try (FileBackstore f = new FileBackstore(p, SIZE, BS, false)) {
            Assumptions.assumeTrue(f.readsNow() && f.describe().contains("RWF_NOWAIT"),
                    () -> "RWF_NOWAIT not offered here: " + f.describe());
            byte[] all = fill(f, 4);
            f.flush();
            Assumptions.assumeTrue(dropCache(p), "dd iflag=nocache unavailable");
            // the first 8 KiB cached again by writing them (a read would bring in readahead's window too)
            f.write(0, ByteBuffer.wrap(all, 0, 16 * BS), false);
            ByteBuffer dst = ByteBuffer.allocateDirect((int) SIZE); // the whole file: cached, then not (past readahead)
            assertThat(f.tryReadNow(0, dst)).isFalse();
            assertThat(dst.position()).isZero();
        }
    }

    @Test
    void heapBuffersAndDisabledReadsGoToTheQueue(@TempDir Path dir) throws IOException {
        try (FileBackstore f = new FileBackstore(dir.resolve("heap.img"), SIZE, BS, false)) {
            fill(f, 5);
            ByteBuffer heap = ByteBuffer.allocate(BS);
            assertThat(f.tryReadNow(0, heap)).isFalse(); // the kernel needs native memory; no copy to save one
            assertThat(heap.position()).isZero();
        }
        try (FileBackstore f = new FileBackstore(dir.resolve("off.img"), SIZE, BS,
                FileBackstore.Options.of(false).nowaitReads(false))) {
            fill(f, 6);
            assertThat(f.readsNow()).isFalse();
            assertThat(f.tryReadNow(0, ByteBuffer.allocateDirect(BS))).isFalse();
            assertThat(f.describe()).doesNotContain("reads ");
        }
    }

    /** Java 21 (no FFM) or another OS: the loader says why, and the backstore reads through its queue only. */
    @Test
    void java21HasNoNativeReadsAndSaysWhy() {
        Java22Native j21 = Java22Native.find("NativeNowaitReads", NowaitReads.class, "non-blocking reads", 21, "Linux");
        assertThat(j21.open()).isNull();
        assertThat(j21.unavailable()).contains("Java 21");
        Java22Native mac = Java22Native.find("NativeNowaitReads", NowaitReads.class, "non-blocking reads", 25, "Mac OS X");
        assertThat(mac.open()).isNull();
        assertThat(mac.unavailable()).contains("Linux only");
        NowaitReads none = NowaitReads.none(j21.unavailable());
        assertThat(none.available()).isFalse();
        assertThat(none.describe()).contains("Java 21");
    }

    /** O_DIRECT bypasses the page cache: no non-blocking reader is opened for it. */
    @Test
    void oDirectFilesHaveNoNowaitReads(@TempDir Path dir) throws IOException {
        FileBackstore f;
        try {
            f = new FileBackstore(dir.resolve("direct.img"), SIZE, 4096, FileBackstore.Options.of(false).direct(true));
        } catch (IOException refused) {
            Assumptions.abort("O_DIRECT refused here: " + refused.getMessage());
            return;
        }
        try (f) {
            assertThat(f.readsNow()).isFalse();
        }
    }

    private static byte[] fill(FileBackstore f, int seed) throws IOException {
        byte[] all = new byte[(int) SIZE];
        new Random(seed).nextBytes(all);
        f.write(0, ByteBuffer.wrap(all), false);
        return all;
    }

    /** Random ranges, both paths, direct buffers at odd positions: identical bytes, buffers advanced alike. */
    private static void assertSameAsQueued(FileBackstore f, byte[] all, Random r) throws IOException {
        long blocks = SIZE / BS;
        for (int i = 0; i < 200; i++) {
            int n = 1 + r.nextInt(64);
            long lba = r.nextLong(blocks - n + 1);
            int at = r.nextInt(3) * BS;
            ByteBuffer now = ByteBuffer.allocateDirect(at + n * BS + 7).position(at).limit(at + n * BS);
            ByteBuffer queued = ByteBuffer.allocateDirect(n * BS);
            assertThat(f.tryReadNow(lba, now)).as("read %d blocks at %d now", n, lba).isTrue();
            f.read(lba, queued);
            assertThat(now.position()).isEqualTo(at + n * BS);
            assertThat(bytes(now.position(at))).isEqualTo(bytes(queued)).isEqualTo(slice(all, lba, n));
        }
    }

    private static byte[] bytes(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        if (d.position() == d.limit()) {
            d.flip();
        }
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    private static byte[] slice(byte[] all, long lba, int blocks) {
        return java.util.Arrays.copyOfRange(all, (int) (lba * BS), (int) ((lba + blocks) * BS));
    }

    private static boolean dropCache(Path p) throws Exception {
        Process dd;
        try {
            dd = new ProcessBuilder("dd", "if=" + p, "iflag=nocache", "count=0").redirectErrorStream(true).start();
        } catch (IOException noDd) {
            return false;
        }
        dd.getInputStream().readAllBytes();
        return dd.waitFor(30, TimeUnit.SECONDS) && dd.exitValue() == 0;
    }
}
