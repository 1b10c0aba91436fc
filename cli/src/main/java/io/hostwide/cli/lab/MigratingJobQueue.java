package io.hostwide.cli.lab;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.IoCallback;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.cli.load.BenchTarget;
import io.hostwide.scsi.sd.ScsiDisk;

import java.nio.ByteBuffer;

/**
 * A bench job whose thread "migrates between CPUs" (seed 001: fio with {@code cpus_allowed_policy=shared}): it
 * submits through one software queue of its disk for {@code every} I/Os, then moves to the next, cycling over all
 * of them, so over time every hardware queue of the disk sees its I/O. Single-threaded, as a job is.
 */
final class MigratingJobQueue implements BenchTarget.JobQueue {

    private final SubmitHandle[] handles;
    private final int every;
    private long issued;
    private int current;
    private BenchTarget.Completion done;
    // One callback object per job: the slot travels as userData, so nothing is allocated per I/O.
    private final IoCallback callback = (slot, status) -> done.complete((int) slot, status == BlkStatus.OK);

    /**
     * @param first the software queue the job starts on
     * @param every I/Os between two moves (> 0)
     */
    MigratingJobQueue(ScsiDisk disk, int first, int every) {
        if (every <= 0) {
            throw new IllegalArgumentException("I/Os between moves must be > 0, got " + every);
        }
        int n = disk.queue().nrCtx();
        this.handles = new SubmitHandle[n];
        for (int c = 0; c < n; c++) {
            handles[c] = new SubmitHandle(disk, disk.queue().submitter(c));
        }
        this.every = every;
        this.current = Math.floorMod(first, n);
    }

    @Override
    public void submit(boolean write, long offset, int length, ByteBuffer buffer, int slot,
                       BenchTarget.Completion d) {
        done = d;
        if (issued++ % every == every - 1) {
            current = current + 1 == handles.length ? 0 : current + 1;
        }
        if (write) {
            handles[current].write(offset, length, buffer, callback, slot);
        } else {
            handles[current].read(offset, length, buffer, callback, slot);
        }
    }
}
