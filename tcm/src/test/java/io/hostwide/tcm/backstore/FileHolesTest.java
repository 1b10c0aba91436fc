package io.hostwide.tcm.backstore;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Thin provisioning of the file backstore against the real filesystem under {@code @TempDir}: UNMAP punches whole
 * filesystem blocks and zeroes the edges, GET LBA STATUS's runs follow SEEK_DATA/SEEK_HOLE, thick files are never
 * punched, and the portable fallback writes zeros and reports everything mapped. Tests that need a filesystem
 * that punches holes are skipped, with the reason, where it cannot.
 */
class FileHolesTest {
    static final int BS = 512;
    static final long SIZE = 1 << 20;
    static final long BLOCKS = SIZE / BS;

    /** Writes a non-zero pattern over the whole device, so every block is allocated. */
    static void fill(FileBackstore f) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(64 * 1024);
        for (int i = 0; i < b.capacity(); i++) {
            b.put(i, (byte) (i % 251 + 1));
        }
        for (long lba = 0; lba < f.blockCount(); lba += b.capacity() / BS) {
            f.write(lba, b.clear(), false);
        }
    }

    static byte[] read(FileBackstore f, long lba, int blocks) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(blocks * BS);
        f.read(lba, b);
        return b.array();
    }

    static boolean allZero(byte[] a) {
        for (byte x : a) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    /** Opens a thin file with native holes, skipping the test where this JVM or filesystem cannot deallocate. */
    static FileBackstore punching(Path file) throws IOException {
        assumeTrue(FileAccess.NativeLoader.unavailable() == null,
                () -> "no native hole support: " + FileAccess.NativeLoader.unavailable());
        FileBackstore f = new FileBackstore(file, SIZE, BS, FileBackstore.Options.of(true));
        fill(f);
        f.unmap(0, f.unmapGranularityBlocks()); // probe: EOPNOTSUPP turns deallocates() off
        if (!f.deallocates()) {
            f.close();
        }
        assumeTrue(f.deallocates(), () -> "the filesystem of " + file + " cannot punch holes");
        fill(f);
        return f;
    }

    @Test
    void nativeSupportLoadsOnJava22PlusLinux() {
        assumeTrue(Runtime.version().feature() >= 22 && System.getProperty("os.name").startsWith("Linux"),
                "native hole support exists on Java 22+ Linux only");
        assertThat(FileAccess.NativeLoader.unavailable()).isNull();
    }

    @Test
    void aFreshSparseFileIsDeallocatedAndAWriteMapsWholeFilesystemBlocks(@TempDir Path dir) throws IOException {
        try (FileBackstore f = punching(dir.resolve("probe.img"))) {
            assertThat(f.provisioningRun(0, BLOCKS)).isEqualTo(BLOCKS); // filled
        }
        try (FileBackstore f = new FileBackstore(dir.resolve("fresh.img"), SIZE, BS, true)) {
            assertThat(f.provisioningRun(0, BLOCKS)).isEqualTo(-BLOCKS);
            int g = f.unmapGranularityBlocks();
            f.write(100, ByteBuffer.wrap(new byte[BS]).put(0, (byte) 1), false);
            long first = 100 / g * g;
            assertThat(f.provisioningRun(0, BLOCKS)).isEqualTo(-first);
            assertThat(f.provisioningRun(first, BLOCKS)).isEqualTo(g);
            assertThat(f.provisioningRun(first + g, BLOCKS)).isEqualTo(-(BLOCKS - first - g));
            assertThat(f.provisioningRun(first, 1)).as("capped at maxBlocks").isEqualTo(1);
        }
    }

    @Test
    void unmapPunchesAHoleThatReadsAsZeros(@TempDir Path dir) throws IOException {
        try (FileBackstore f = punching(dir.resolve("lun.img"))) {
            int g = f.unmapGranularityBlocks();
            long lba = 4L * g;
            long blocks = 16L * g;
            f.unmap(lba, blocks);
            assertThat(allZero(read(f, lba, (int) blocks))).isTrue();
            assertThat(allZero(read(f, lba - 1, 1))).isFalse();
            assertThat(allZero(read(f, lba + blocks, 1))).isFalse();
            assertThat(f.provisioningRun(0, BLOCKS)).isEqualTo(lba);
            assertThat(f.provisioningRun(lba, BLOCKS)).isEqualTo(-blocks);
            assertThat(f.provisioningRun(lba + blocks, BLOCKS)).isEqualTo(BLOCKS - lba - blocks);
        }
    }

    @Test
    void theHoleIsInTheFileItselfAsSeekHoleSeesIt(@TempDir Path dir) throws IOException {
        Path p = dir.resolve("lun.img");
        long lba;
        try (FileBackstore f = punching(p)) {
            lba = 8L * f.unmapGranularityBlocks();
            f.unmap(lba, 8L * f.unmapGranularityBlocks());
        }
        FileHoles h = FileAccess.NativeLoader.open(p);
        try {
            assertThat(h.tracksAllocation()).isTrue();
            assertThat(h.nextHole(0)).isEqualTo(lba * BS);
            assertThat(h.nextData(lba * BS)).isGreaterThan(lba * BS);
        } finally {
            h.close();
        }
    }

    @Test
    void unalignedEdgesAreZeroedAndOnlyWholeFilesystemBlocksPunched(@TempDir Path dir) throws IOException {
        try (FileBackstore f = punching(dir.resolve("lun.img"))) {
            int g = f.unmapGranularityBlocks();
            assumeTrue(g > 1, "filesystem block equals the logical block: no unaligned edges exist");
            long lba = 2L * g + 1; // starts one block into a filesystem block
            long blocks = 3L * g; // ends one block short of one
            f.unmap(lba, blocks);
            assertThat(allZero(read(f, lba, (int) blocks))).as("whole range reads zeros").isTrue();
            assertThat(allZero(read(f, lba - 1, 1))).isFalse();
            assertThat(allZero(read(f, lba + blocks, 1))).isFalse();
            // [2g, 3g) keeps its first block: mapped; [3g, 5g) punched; [5g, ...) keeps its last block: mapped
            assertThat(f.provisioningRun(0, BLOCKS)).isEqualTo(3L * g);
            assertThat(f.provisioningRun(3L * g, BLOCKS)).isEqualTo(-2L * g);
            assertThat(f.provisioningRun(5L * g, BLOCKS)).isEqualTo(BLOCKS - 5L * g);
        }
    }

    @Test
    void anUnmapSmallerThanAFilesystemBlockWritesZerosAndStaysMapped(@TempDir Path dir) throws IOException {
        try (FileBackstore f = punching(dir.resolve("lun.img"))) {
            int g = f.unmapGranularityBlocks();
            assumeTrue(g > 1, "filesystem block equals the logical block");
            f.unmap(g, g - 1L);
            assertThat(allZero(read(f, g, g - 1))).isTrue();
            assertThat(allZero(read(f, 2L * g - 1, 1))).isFalse();
            assertThat(f.provisioningRun(0, BLOCKS)).isEqualTo(BLOCKS);
        }
    }

    @Test
    void theForcedFallbackWritesZerosAndReportsEverythingMapped(@TempDir Path dir) throws IOException {
        Path p = dir.resolve("portable.img");
        FileBackstore.Options portable = FileBackstore.Options.of(true).nativeHoles(false);
        try (FileBackstore f = new FileBackstore(p, SIZE, BS, portable)) {
            fill(f);
            assertThat(f.deallocates()).isFalse();
            assertThat(f.unmapGranularityBlocks()).isEqualTo(1);
            assertThat(f.supportsUnmap()).isTrue();
            assertThat(f.describe()).contains("portable");
            f.unmap(64, 128);
            assertThat(allZero(read(f, 64, 128))).isTrue();
            assertThat(allZero(read(f, 63, 1))).isFalse();
            assertThat(f.provisioningRun(0, BLOCKS)).isEqualTo(BLOCKS);
            assertThat(f.provisioningRun(100, 5)).isEqualTo(5);
        }
        assertStillAllocated(p);
    }

    /** Answers the first punch like a filesystem returning EOPNOTSUPP, as NativeFileHoles then does. */
    static final class UnpunchableHoles implements FileHoles {
        volatile boolean refused;
        int attempts;

        @Override public boolean tracksAllocation() { return true; }
        @Override public boolean canPunch() { return !refused; }
        @Override public boolean punchHole(long offset, long length) {
            attempts++;
            refused = true;
            return false;
        }
        @Override public long nextData(long offset) { return offset; }
        @Override public long nextHole(long offset) { return NONE; }
        @Override public String describe() { return "unpunchable"; }
        @Override public void close() {}
    }

    @Test
    void aFilesystemThatCannotPunchFallsBackToZerosForThatFileAndRemembers(@TempDir Path dir) throws IOException {
        Path p = dir.resolve("lun.img");
        UnpunchableHoles holes = new UnpunchableHoles();
        FileAccess access = new FileAccess(FileChannel.open(p, StandardOpenOption.CREATE,
                StandardOpenOption.READ, StandardOpenOption.WRITE), holes, 0);
        try (FileBackstore f = new FileBackstore(p, SIZE, BS, true, access)) {
            fill(f);
            assertThat(f.deallocates()).isTrue();
            f.unmap(64, 256);
            assertThat(holes.attempts).isEqualTo(1);
            assertThat(allZero(read(f, 64, 256))).as("zeros written instead").isTrue();
            assertThat(allZero(read(f, 63, 1))).isFalse();
            assertThat(f.deallocates()).isFalse();
            assertThat(f.unmapGranularityBlocks()).isEqualTo(1);
            assertThat(f.describe()).contains("UNMAP writes zeros (unpunchable)");
            f.unmap(512, 256);
            assertThat(holes.attempts).as("not asked again").isEqualTo(1);
            assertThat(allZero(read(f, 512, 256))).isTrue();
            assertThat(f.provisioningRun(0, BLOCKS)).isEqualTo(BLOCKS);
        }
    }

    @Test
    void aThickFileIsNeverPunched(@TempDir Path dir) throws IOException {
        Path p = dir.resolve("thick.img");
        try (FileBackstore f = new FileBackstore(p, SIZE, BS, false)) {
            fill(f);
            assertThat(f.supportsUnmap()).isFalse();
            assertThat(f.deallocates()).isFalse();
            f.unmap(0, BLOCKS); // what SANITIZE may ask: zeros, never a hole
            assertThat(allZero(read(f, 0, (int) BLOCKS))).isTrue();
            assertThat(f.provisioningRun(0, BLOCKS)).isEqualTo(BLOCKS);
        }
        assertStillAllocated(p);
    }

    /** Where native hole support exists, checks that the file has no hole at all. */
    private static void assertStillAllocated(Path p) throws IOException {
        if (FileAccess.NativeLoader.unavailable() != null) {
            return;
        }
        FileHoles h = FileAccess.NativeLoader.open(p);
        try {
            assertThat(h.nextHole(0)).as("first hole of %s", p).isEqualTo(SIZE);
        } finally {
            h.close();
        }
    }

    @Test
    void readsPastTheEndOfAShrunkenFileAreDeallocatedZeros(@TempDir Path dir) throws IOException {
        Path p = dir.resolve("lun.img");
        try (FileBackstore f = punching(p)) {
            try (var ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
                ch.truncate(SIZE / 2); // shrunk behind the backstore's back
            }
            assertThat(f.provisioningRun(0, BLOCKS)).isEqualTo(BLOCKS / 2);
            assertThat(f.provisioningRun(BLOCKS / 2, BLOCKS)).isEqualTo(-BLOCKS / 2);
            byte[] tail = read(f, BLOCKS - 2, 2);
            assertThat(tail).isEqualTo(new byte[2 * BS]);
            assertThat(Arrays.equals(read(f, 0, 1), new byte[BS])).isFalse();
        }
    }
}
