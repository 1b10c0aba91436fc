package io.hostwide.bench.blk;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.IoCallback;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.scsi.sd.ScsiDisk;
import io.hostwide.loop.DebugParams;
import io.hostwide.loop.LoopHba;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongUnaryOperator;

/**
 * The job loop of {@link LoopPairRatio}: a scsi_debug-style HBA (the {@code lab shared-tags} setting) and per
 * job thread a runner that keeps {@value #IODEPTH} random 4 KiB reads in flight on its own disk, unplugged, one
 * submission per completion, for a slice of time. Public API only, so it links against older builds.
 */
public final class LoopSlices {
    static final int IODEPTH = 32;

    private LoopSlices() {
    }

    /** An HBA from {@code debug:} knobs, optionally followed by {@code ;scheduler}. */
    public static Object open(String spec) {
        String[] parts = spec.split(";", 2);
        LoopHba hba = LoopHba.create(DebugParams.parse(parts[0]));
        for (ScsiDisk d : hba.disks()) {
            d.queue().setScheduler(parts.length > 1 ? parts[1] : "none");
        }
        return hba;
    }

    /** Job {@code index}: its own disk (index mod disks) and handle. */
    public static LongUnaryOperator runner(Object hba, int index) {
        List<ScsiDisk> disks = ((LoopHba) hba).disks();
        ScsiDisk d = disks.get(index % disks.size());
        SubmitHandle h = d.openHandle();
        ByteBuffer[] bufs = new ByteBuffer[IODEPTH];
        for (int i = 0; i < IODEPTH; i++) {
            bufs[i] = ByteBuffer.allocateDirect(4096);
        }
        AtomicInteger done = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        Thread[] owner = new Thread[1];
        IoCallback cb = (ud, st) -> {
            if (st != BlkStatus.OK) {
                failed.incrementAndGet();
            }
            done.incrementAndGet();
            LockSupport.unpark(owner[0]);
        };
        long blocks = d.capacityBytes() / 4096;
        return sliceNanos -> {
            owner[0] = Thread.currentThread();
            ThreadLocalRandom r = ThreadLocalRandom.current();
            long end = System.nanoTime() + sliceNanos;
            int inFlight = 0;
            long count = 0;
            for (;;) {
                boolean issue = System.nanoTime() < end;
                while (issue && inFlight < IODEPTH) {
                    h.read(r.nextLong(blocks) * 4096, 4096, bufs[inFlight], cb, inFlight);
                    inFlight++;
                }
                if (inFlight == 0) {
                    break;
                }
                int c = done.getAndSet(0);
                if (c == 0) {
                    LockSupport.parkNanos(200_000);
                    continue;
                }
                inFlight -= c;
                count += c;
            }
            if (failed.get() != 0) {
                throw new IllegalStateException(failed.get() + " I/Os failed");
            }
            return count;
        };
    }
}
