package io.hostwide.tcm.backstore.rbd;

import java.util.Arrays;

/**
 * The byte extents of an RBD image that hold data, as {@code rbd_diff_iterate2} reports them (in any order, from any
 * thread), and the provisioning run they imply for GET LBA STATUS (SBC-4 §5.8): a logical block is mapped when an
 * extent covers any of its bytes, deallocated otherwise. Plain Java, apart from the FFM binding, so tests reach it.
 */
final class AllocatedExtents {
    /**
     * What one GET LBA STATUS query scans at most: diff_iterate asks the OSDs about every object in its range, and
     * four objects of RBD's default 4 MiB are a handful of round trips, so no query walks a huge image.
     */
    static final long SCAN_BYTES = 16L << 20;
    /**
     * What one query looks at in the object map (fast-diff): no OSD round trips, 2 bits per object, so 64 GiB
     * (16384 default objects) costs little, and a LUN of up to that size that holds no data is one descriptor.
     */
    static final long MAP_SCAN_BYTES = 64L << 30;

    private long[] offsets = new long[16];
    private long[] lengths = new long[16];
    private int count;

    /** Records {@code length} bytes of data at byte {@code offset}. */
    synchronized void add(long offset, long length) {
        if (count == offsets.length) {
            offsets = Arrays.copyOf(offsets, 2 * count);
            lengths = Arrays.copyOf(lengths, 2 * count);
        }
        offsets[count] = offset;
        lengths[count] = length;
        count++;
    }

    /**
     * The run of blocks from {@code lba} up to {@code limit} (exclusive) that share {@code lba}'s state, as
     * {@code Backstore.provisioningRun}: positive when mapped, negative when deallocated, never 0 for
     * {@code limit > lba}.
     */
    synchronized long run(int blockSize, long lba, long limit) {
        long[][] spans = new long[count][]; // [first block, end block) of each extent, clipped to [lba, limit)
        int n = 0;
        for (int i = 0; i < count; i++) {
            if (lengths[i] <= 0) {
                continue;
            }
            long first = Math.max(lba, offsets[i] / blockSize);
            long end = Math.min(limit, Math.ceilDiv(offsets[i] + lengths[i], blockSize));
            if (first < end) {
                spans[n++] = new long[] {first, end};
            }
        }
        Arrays.sort(spans, 0, n, (a, b) -> Long.compare(a[0], b[0]));
        if (n == 0 || spans[0][0] > lba) {
            return -((n == 0 ? limit : spans[0][0]) - lba);
        }
        long end = spans[0][1];
        for (int i = 1; i < n && spans[i][0] <= end; i++) {
            end = Math.max(end, spans[i][1]);
        }
        return end - lba;
    }
}
