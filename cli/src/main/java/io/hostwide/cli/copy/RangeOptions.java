package io.hostwide.cli.copy;

import io.hostwide.blk.api.BlockDevice;
import io.hostwide.management.util.Sizes;
import picocli.CommandLine.Option;

/** The options copy and verify share: devices, record size, range and parallelism (dd and sg_mrq_dd names). */
public final class RangeOptions {

    @Option(names = "--from", required = true, paramLabel = "KIND[:KEY=VALUE,...]", description = "Source device")
    String from;

    @Option(names = "--to", required = true, paramLabel = "KIND[:KEY=VALUE,...]", description = "Destination device")
    String to;

    @Option(names = "--bs", defaultValue = "64k", paramLabel = "SIZE",
            description = "Bytes per request, a multiple of the block size (default: ${DEFAULT-VALUE})")
    String bs;

    @Option(names = "--count", paramLabel = "N", description = "Records (of --bs) to move (default: the rest of the source)")
    Long count;

    @Option(names = "--skip", defaultValue = "0", paramLabel = "N", description = "Records to skip at the source start")
    long skip;

    @Option(names = "--seek", defaultValue = "0", paramLabel = "N", description = "Records to skip at the destination start")
    long seek;

    @Option(names = "--iodepth", defaultValue = "8", paramLabel = "N", description = "Chunks in flight per job (default: ${DEFAULT-VALUE})")
    int iodepth;

    @Option(names = "--numjobs", defaultValue = "2", paramLabel = "N", description = "Copy threads (default: ${DEFAULT-VALUE})")
    int numjobs;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of --fill-source data (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--json", description = "Print the result as JSON")
    boolean json;

    /** Checks everything against both devices before any I/O; errors name the option. */
    CopyPlan plan(BlockDevice src, BlockDevice dst) {
        if (src.logicalBlockSize() != dst.logicalBlockSize()) {
            throw new IllegalArgumentException("--from and --to have different block sizes ("
                    + src.logicalBlockSize() + " vs " + dst.logicalBlockSize()
                    + " bytes): a block-for-block copy needs equal sizes");
        }
        long chunk = Sizes.parseBytes("--bs", bs);
        int lbs = src.logicalBlockSize();
        if (chunk <= 0 || chunk % lbs != 0 || chunk > 64L << 20) {
            throw new IllegalArgumentException("--bs: " + bs + " must be a multiple of the block size " + lbs
                    + " and at most 64 MiB");
        }
        if (iodepth < 1 || iodepth > 1024) {
            throw new IllegalArgumentException("--iodepth: " + iodepth + " is out of range (1..1024)");
        }
        if (numjobs < 1 || numjobs > 64) {
            throw new IllegalArgumentException("--numjobs: " + numjobs + " is out of range (1..64)");
        }
        if (skip < 0 || seek < 0 || (count != null && count < 0)) {
            throw new IllegalArgumentException("--skip, --seek and --count must not be negative");
        }
        long srcStart = Math.multiplyExact(skip, chunk);
        long dstStart = Math.multiplyExact(seek, chunk);
        if (srcStart > src.capacityBytes()) {
            throw new IllegalArgumentException("--skip: " + skip + " records start beyond the source ("
                    + src.capacityBytes() + " bytes)");
        }
        long bytes = count != null ? Math.multiplyExact(count, chunk) : src.capacityBytes() - srcStart;
        if (srcStart + bytes > src.capacityBytes()) {
            throw new IllegalArgumentException("--count: " + count + " records run past the end of the source ("
                    + src.capacityBytes() + " bytes)");
        }
        if (dstStart + bytes > dst.capacityBytes()) {
            throw new IllegalArgumentException("--to: the destination has " + dst.capacityBytes() + " bytes but the copy needs "
                    + (dstStart + bytes) + (seek > 0 ? " (" + dstStart + " skipped by --seek + " + bytes + ")" : "")
                    + "; give --count");
        }
        return new CopyPlan(srcStart, dstStart, bytes, (int) chunk, iodepth, numjobs, seed);
    }
}
