package io.hostwide.tcm.backstore.rbd;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * An RBD image's provisioning state for GET LBA STATUS (SBC-4 §5.8), from {@code rbd_diff_iterate2} over the image's
 * whole history (no from-snapshot, parent included, exact extents rather than whole objects): a byte the diff does
 * not report was never written or was discarded, and a logical block none of whose bytes is reported is
 * deallocated. Everything else is mapped.
 *
 * <p>Every query is bounded (see {@link #run}): a run that goes on past the bound is reported up to there, and the
 * next descriptor (or command) continues from its end.
 *
 * <p>librbd calls the callback (an upcall) from the thread of {@code rbd_diff_iterate2} or its own, before the call
 * returns; the callback only records the extent in the scan its argument names, and never throws.
 */
final class RbdAllocation {
    private RbdAllocation() {}

    private static final Logger LOG = Logger.getLogger("io.hostwide.tcm.backstore.rbd");

    private static final Map<Long, AllocatedExtents> SCANS = new ConcurrentHashMap<>();
    private static final AtomicLong NEXT_SCAN = new AtomicLong(1);
    private static final MemorySegment CALLBACK = callback();

    /**
     * The run of blocks starting at {@code lba} that share its state, as {@code Backstore.provisioningRun}: positive
     * when mapped, negative when deallocated, at most {@code maxBlocks}, never 0.
     *
     * <p>With fast-diff (and a valid object map) the objects that exist come from the object map, without asking
     * the OSDs, so a deallocated run is found over up to {@link AllocatedExtents#MAP_SCAN_BYTES} at once (a whole
     * sanitized LUN in one descriptor, as libiscsi's Sanitize.BlockErase expects); within existing objects, and
     * without fast-diff, exact extents are asked for over at most {@link AllocatedExtents#SCAN_BYTES}.
     *
     * @param blocks the image's size in blocks (the scan stops there)
     * @param failed told librbd's negative answer before it is thrown (the image notes a fence)
     */
    static long run(MemorySegment image, String spec, int blockSize, long blocks, long features, long lba,
                    long maxBlocks, IntConsumer failed) throws IOException {
        long end = Math.min(blocks, lba + maxBlocks);
        if (end <= lba) {
            return 1; // at or past the end: nothing to ask (GET LBA STATUS checks the LBA before asking)
        }
        if ((features & LibRbd.FEATURE_FAST_DIFF) != 0 && objectMapValid(image)) {
            long limit = Math.min(end, lba + AllocatedExtents.MAP_SCAN_BYTES / blockSize);
            long objects = scan(image, spec, blockSize, lba, limit, true, failed);
            if (objects < 0) {
                return objects; // no object exists there
            }
            end = lba + objects; // inside existing objects: their exact extents
        }
        long limit = Math.min(end, lba + AllocatedExtents.SCAN_BYTES / blockSize);
        return scan(image, spec, blockSize, lba, limit, false, failed);
    }

    private static long scan(MemorySegment image, String spec, int blockSize, long lba, long limit,
                             boolean wholeObjects, IntConsumer failed) throws IOException {
        AllocatedExtents found = new AllocatedExtents();
        long id = NEXT_SCAN.getAndIncrement();
        SCANS.put(id, found);
        int r;
        try {
            r = diffIterate(image, lba * blockSize, (limit - lba) * blockSize, wholeObjects,
                    MemorySegment.ofAddress(id));
        } finally {
            SCANS.remove(id);
        }
        if (r < 0) {
            failed.accept(r);
            throw Errno.dataPathError("rbd diff_iterate2 " + spec + " at byte " + lba * blockSize, r);
        }
        return found.run(blockSize, lba, limit);
    }

    private static boolean objectMapValid(MemorySegment image) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment flags = arena.allocate(JAVA_LONG);
            return Native.i(LibRbd.RBD_GET_FLAGS, image, flags) == 0
                    && (flags.get(JAVA_LONG, 0) & LibRbd.FLAGS_MAP_INVALID) == 0;
        }
    }

    /** rbd_diff_iterate2(image, NULL, off, len, include_parent 1, whole_object, CALLBACK, arg). */
    private static int diffIterate(MemorySegment image, long offset, long length, boolean wholeObjects,
                                   MemorySegment arg) {
        try {
            return (int) LibRbd.RBD_DIFF_ITERATE2.invokeExact(image, MemorySegment.NULL, offset, length, (byte) 1,
                    (byte) (wholeObjects ? 1 : 0), CALLBACK, arg);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** rbd_diff_iterate2's callback: records a data extent ({@code exists} 0 would be a hole; none are reported). */
    private static int onExtent(long offset, long length, int exists, MemorySegment arg) {
        try {
            AllocatedExtents e = SCANS.get(arg.address());
            if (e != null && exists != 0) {
                e.add(offset, length);
            }
            return 0;
        } catch (Throwable t) { // an exception escaping an upcall ends the JVM; a negative answer ends the diff
            LOG.log(Level.WARNING, "rbd diff_iterate2 callback", t);
            return -Errno.EIO;
        }
    }

    private static MemorySegment callback() {
        if (LibRbd.MISSING != null) {
            return MemorySegment.NULL;
        }
        try {
            return LibRbd.diffCallback(MethodHandles.lookup().findStatic(RbdAllocation.class, "onExtent",
                    MethodType.methodType(int.class, long.class, long.class, int.class, MemorySegment.class)),
                    Arena.global());
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
