package io.hostwide.tcm.backstore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * What the kernel says about a block device, read from sysfs (Linux): its size and the queue limits a SCSI
 * initiator should see. The device's sysfs directory is found from its major:minor ({@code /sys/dev/block/M:m}),
 * never from its name, so {@code /dev/disk/by-id/...}, {@code /dev/mapper/...} and other symlinks work. A partition
 * has no {@code queue} directory of its own; its disk's is used.
 *
 * @param path              the path as configured
 * @param devNode           the device node after following symlinks
 * @param major             device major number
 * @param minor             device minor number
 * @param sysfsName         the kernel's name (loop0, sda1, dm-3)
 * @param sizeBytes         capacity: sysfs {@code size}, which the kernel always gives in 512-byte sectors
 * @param logicalBlockSize  {@code queue/logical_block_size}: the smallest unit of addressing, and O_DIRECT's alignment
 * @param physicalBlockSize {@code queue/physical_block_size}
 * @param rotational        {@code queue/rotational} is 1 (a spinning disk)
 * @param discardMaxBytes   {@code queue/discard_max_bytes}; 0 when the device cannot discard
 * @param discardGranularity {@code queue/discard_granularity} in bytes (0 when unknown)
 * @param writeBack         {@code queue/write_cache} reads "write back" (a volatile cache that flushes must reach)
 * @param mountedAt         mount points of this very device from {@code /proc/self/mountinfo} (empty when none)
 */
public record BlockDevice(Path path, Path devNode, int major, int minor, String sysfsName, long sizeBytes,
                          int logicalBlockSize, int physicalBlockSize, boolean rotational, long discardMaxBytes,
                          long discardGranularity, boolean writeBack, List<String> mountedAt) {

    /** S_IFMT and S_IFBLK from {@code <sys/stat.h>}. */
    private static final int S_IFMT = 0170000;
    private static final int S_IFBLK = 0060000;

    private static final Path SYS_DEV_BLOCK = Path.of("/sys/dev/block");
    private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");

    /** Whether {@code path} (following symlinks) is a block device node; false when it cannot be told. */
    public static boolean isBlockDevice(Path path) {
        try {
            return (((Integer) Files.getAttribute(path, "unix:mode")) & S_IFMT) == S_IFBLK;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return false;
        }
    }

    /**
     * Reads what sysfs says about the block device at {@code path}.
     *
     * @throws NoSuchFileException      no such path
     * @throws IllegalArgumentException the path is not a block device (the message says what it is)
     * @throws IOException              sysfs could not be read (not Linux, or no /sys)
     */
    public static BlockDevice probe(Path path) throws IOException {
        Path node = path.toRealPath();
        if (!isBlockDevice(node)) {
            String what = Files.isDirectory(node) ? "a directory" : Files.isRegularFile(node)
                    ? "a regular file (use \"type\": \"file\" for image files)" : "not a block device";
            throw new IllegalArgumentException(path + " is " + what);
        }
        long rdev = ((Number) Files.getAttribute(node, "unix:rdev")).longValue();
        int major = major(rdev);
        int minor = minor(rdev);
        Path dir;
        try {
            dir = SYS_DEV_BLOCK.resolve(major + ":" + minor).toRealPath();
        } catch (NoSuchFileException e) {
            throw new IOException(path + ": no " + SYS_DEV_BLOCK + "/" + major + ":" + minor
                    + " (is /sys mounted?)", e);
        }
        Path queue = Files.isDirectory(dir.resolve("queue")) ? dir.resolve("queue") : dir.getParent().resolve("queue");
        int logical = (int) readLong(queue.resolve("logical_block_size"));
        int physical = (int) readLong(queue.resolve("physical_block_size"));
        if (logical < 512 || Integer.bitCount(logical) != 1 || physical < logical) {
            throw new IOException(path + ": unusable block sizes in sysfs: logical " + logical + ", physical " + physical);
        }
        return new BlockDevice(path, node, major, minor, dir.getFileName().toString(),
                readLong(dir.resolve("size")) * 512, logical, physical,
                readLong(queue.resolve("rotational")) != 0,
                optionalLong(queue.resolve("discard_max_bytes")),
                optionalLong(queue.resolve("discard_granularity")),
                optionalString(queue.resolve("write_cache")).startsWith("write back"),
                mountPoints(major, minor));
    }

    /** glibc's {@code gnu_dev_major}: 12 bits low, the rest from bit 32 up. */
    static int major(long dev) {
        return (int) (((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL));
    }

    /** glibc's {@code gnu_dev_minor}. */
    static int minor(long dev) {
        return (int) ((dev & 0xff) | ((dev >>> 12) & ~0xffL));
    }

    /** Field 3 of each mountinfo line is the mounted filesystem's major:minor; field 5 its mount point. */
    static List<String> mountPoints(int major, int minor) {
        String id = major + ":" + minor;
        try (var lines = Files.lines(MOUNTINFO)) {
            return lines.map(l -> l.split(" "))
                    .filter(f -> f.length > 4 && f[2].equals(id))
                    .map(f -> f[4])
                    .toList();
        } catch (IOException | java.io.UncheckedIOException e) {
            return List.of(); // no /proc: the exclusive open still refuses a mounted device on Java 22+
        }
    }

    private static long readLong(Path p) throws IOException {
        String s = Files.readString(p).trim();
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IOException(p + ": not a number: '" + s + "'", e);
        }
    }

    /** 0 when the file is absent (older kernels lack some). */
    private static long optionalLong(Path p) throws IOException {
        return Files.exists(p) ? readLong(p) : 0;
    }

    private static String optionalString(Path p) throws IOException {
        return Files.exists(p) ? Files.readString(p).trim() : "";
    }

    /** Whether UNMAP can become BLKDISCARD on this device. */
    public boolean discards() { return discardMaxBytes > 0; }
}
