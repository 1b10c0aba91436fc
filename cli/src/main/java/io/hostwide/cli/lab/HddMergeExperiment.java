package io.hostwide.cli.lab;

import io.hostwide.cli.bench.BenchResult;
import io.hostwide.scsi.mid.ScsiDevice;
import io.hostwide.scsi.sd.ScsiDisk;
import io.hostwide.target.loop.LoopHba;

import java.util.List;
import java.util.Locale;

/**
 * Seed 004 (Ming Lei, "don't limit per-LUN queue depth for SSD"): on a rotational disk a per-LUN queue_depth
 * below the offered load makes {@code get_budget} fail, requests wait in the scheduler and sequential streams
 * merge; with queue_depth 255 the budget never runs out and every 4 KiB read goes down alone.
 */
final class HddMergeExperiment implements Experiment {

    static final int JOBS = 4;
    static final int IODEPTH = 32;   // 4 x 32 = 128 in flight: under 255, over 32
    static final int BS = 4096;
    static final int[] DEPTHS = {255, 32};

    @Override
    public String name() {
        return "hdd-merge";
    }

    @Override
    public String summary() {
        return "seed 004: sequential reads on a rotational disk, queue_depth 255 vs 32 (budget-driven merging)";
    }

    @Override
    public long defaultNdelayNanos() {
        return 100_000L;
    }

    @Override
    public LabReport run(LabRun run) throws InterruptedException {
        long ndelay = run.ndelayOr(defaultNdelayNanos());
        String knobs = "rotational=1,max_queue=255,dev_size_mb=64,ndelay=" + ndelay;
        LabReport r = new LabReport(name(),
                "debug:" + knobs + " (seek_ns 2 ms), mq-deadline, rw=read bs=4k numjobs=" + JOBS + " iodepth="
                        + IODEPTH + ", " + run.cellNanos() / 1_000_000 + " ms per cell",
                LabReport.table("queue_depth", "MB/s", "IOPS", "commands", "merges", "merges/IO", "KiB/command"),
                "seed 004, Ming Lei 2019-11-22, fio read on a 4-core VM",
                LabReport.table("queue_depth", "fio read throughput").add(255, "825MB/s").add(32, "1432MB/s"));
        double[] kibPerCommand = new double[DEPTHS.length];
        double[] mbs = new double[DEPTHS.length];
        for (int i = 0; i < DEPTHS.length && !run.stopped(); i++) {
            try (LoopHba hba = Hbas.debug(knobs)) {
                ScsiDisk disk = hba.disk(0);
                disk.queue().setScheduler("mq-deadline");
                ScsiDevice sdev = disk.scsiDevice();
                int qd = sdev.changeQueueDepth(DEPTHS[i]);
                DiskSetTarget target = new DiskSetTarget(List.of(disk));
                run.warmUp(target, "read", BS, IODEPTH, JOBS);
                long cmds0 = sdev.iorequestCnt();
                long merges0 = disk.queue().merges();
                BenchResult res = run.cell(target, "read", BS, IODEPTH, JOBS);
                long cmds = sdev.iorequestCnt() - cmds0;
                long merges = disk.queue().merges() - merges0;
                mbs[i] = Hbas.mbPerSecond(res.read().bytesPerSecond());
                double perIo = res.read().ios() == 0 ? 0 : (double) merges / res.read().ios();
                kibPerCommand[i] = cmds == 0 ? 0 : res.read().bytes() / 1024.0 / cmds;
                r.ours.add(qd, mbs[i], Math.round(res.read().iops()), cmds, merges, perIo, kibPerCommand[i]);
                run.note("hdd-merge: queue_depth " + qd + " done");
                r.interrupted |= res.interrupted();
            }
        }
        r.interrupted |= run.stopped();
        boolean complete = r.ours.rows().size() == DEPTHS.length;
        // Merges per I/O (KiB per command), not the raw merge count: the count grows with throughput alone.
        r.verdict("queue_depth 32 sends bigger (more merged) commands and reads faster than 255 (seed: 1.7x)",
                complete ? kibPerCommand[1] > kibPerCommand[0] && mbs[1] > mbs[0] : null,
                complete ? String.format(Locale.ROOT, "KiB/command %.1f vs %.1f, throughput %.2fx",
                        kibPerCommand[1], kibPerCommand[0], mbs[0] == 0 ? 0 : mbs[1] / mbs[0]) : "");
        return r;
    }
}
