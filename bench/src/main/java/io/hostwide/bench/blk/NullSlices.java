package io.hostwide.bench.blk;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.IoCallback;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.blk.exec.ThreadPoolKblockd;
import io.hostwide.blk.nullb.NullConfig;
import io.hostwide.blk.nullb.NullDevice;

import java.nio.ByteBuffer;
import java.util.function.LongUnaryOperator;

/**
 * The job loop of the paired ratios ({@link NullPairRatio}, {@link JarPairRatio}): a null device, and per job
 * thread a runner that submits plugged 4 KiB reads, {@value #IODEPTH} per plug, for a slice of time and returns
 * how many completed. Uses only the null device's public API, so {@link JarPairRatio} can load it against an
 * older build of the block layer.
 */
public final class NullSlices {
    static final int IODEPTH = 64;

    private NullSlices() {
    }

    /** A null device from a {@code null_blk} knob string, on its own one-thread kblockd. */
    public static Object open(String knobs) {
        ThreadPoolKblockd kb = new ThreadPoolKblockd("pair-kblockd", 1);
        return NullDevice.create(NullConfig.parse(knobs, "pair"), kb);
    }

    /** A runner for one job thread: its own handle (its own software queue); argument and result as above. */
    public static LongUnaryOperator runner(Object device) {
        SubmitHandle h = ((NullDevice) device).openHandle();
        ByteBuffer buf = ByteBuffer.allocateDirect(4096);
        long[] done = new long[1];
        long[] failed = new long[1];
        long[] offset = new long[1];
        IoCallback cb = (ud, st) -> {
            if (st == BlkStatus.OK) {
                done[0]++;
            } else {
                failed[0]++;
            }
        };
        return sliceNanos -> {
            long before = done[0];
            long end = System.nanoTime() + sliceNanos;
            long off = offset[0];
            while (System.nanoTime() < end) {
                h.startPlug();
                for (int i = 0; i < IODEPTH; i++) {
                    h.read(off, 4096, buf, cb, i);
                    off = (off + 4096) & ((1L << 30) - 1);
                }
                h.finishPlug();
            }
            offset[0] = off;
            if (failed[0] != 0) {
                throw new IllegalStateException(failed[0] + " I/Os failed");
            }
            return done[0] - before;
        };
    }
}
