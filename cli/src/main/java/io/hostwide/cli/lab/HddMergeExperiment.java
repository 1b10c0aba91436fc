package io.hostwide.cli.lab;

import io.hostwide.cli.load.BenchResult;
import io.hostwide.scsi.mid.ScsiDevice;
import io.hostwide.scsi.sd.ScsiDisk;
import io.hostwide.loop.LoopHba;

import java.util.List;
import java.util.Locale;

/**
 * Seed 004 (Ming Lei, "don't limit per-LUN queue depth for SSD"): on a rotational disk a per-LUN queue_depth
 * below the offered load makes {@code get_budget} fail, requests wait in the scheduler and sequential streams
 * merge; with queue_depth 255 the budget never runs out and every 4 KiB read goes down alone. The emulated disk
 * serves one command at a time with a seek unless sequential ({@code SeekModel}), so bigger commands are the only
 * way to more throughput. Run with scheduler none (requests wait and merge in the software queues only when the
 * budget runs out) and mq-deadline (it also merges requests submitted while an asynchronous run is pending).
 */
final class HddMergeExperiment implements Experiment {

    static final int JOBS = 4;
    static final int IODEPTH = 32;   // 4 x 32 = 128 in flight: under 255, over 32
    static final int BS = 4096;
    static final int[] DEPTHS = {255, 32};
    static final String[] SCHEDULERS = {"none", "mq-deadline"};
    // The disk: a short seek between interleaved streams (read-ahead absorbs most of it on a real disk), a fixed
    // cost per command and the media rate, so 4 KiB commands are overhead-bound and merged ones near the media rate.
    static final long SEEK_NS = 100_000;
    static final long CMD_NS = 100_000;
    static final int XFER_MBPS = 200;

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
        String knobs = "rotational=1,seek_ns=" + SEEK_NS + ",cmd_ns=" + CMD_NS + ",xfer_mbps=" + XFER_MBPS
                + ",max_queue=255,dev_size_mb=64,ndelay=" + ndelay;
        LabReport r = new LabReport(name(),
                "debug:" + knobs + " (served serially), none and mq-deadline, rw=read bs=4k numjobs=" + JOBS + " iodepth="
                        + IODEPTH + ", " + run.cellNanos() / 1_000_000 + " ms per cell",
                LabReport.table("scheduler", "queue_depth", "MB/s", "IOPS", "commands", "merges", "merges/IO", "KiB/command"),
                "seed 004, Ming Lei 2019-11-22, fio read on a 4-core VM",
                LabReport.table("queue_depth", "fio read throughput").add(255, "825MB/s").add(32, "1432MB/s"));
        double[][] kibPerCommand = new double[SCHEDULERS.length][DEPTHS.length];
        double[][] mbs = new double[SCHEDULERS.length][DEPTHS.length];
        for (int s = 0; s < SCHEDULERS.length; s++) {
            for (int i = 0; i < DEPTHS.length && !run.stopped(); i++) {
                cell(run, r, knobs, SCHEDULERS[s], DEPTHS[i], s, i, kibPerCommand, mbs);
            }
        }
        r.interrupted |= run.stopped();
        verdict(r, kibPerCommand, mbs);
        return r;
    }

    private static void cell(LabRun run, LabReport r, String knobs, String sched, int depth, int s, int i,
                             double[][] kibPerCommand, double[][] mbs) throws InterruptedException {
        try (LoopHba hba = Hbas.debug(knobs)) {
            ScsiDisk disk = hba.disk(0);
            disk.queue().setScheduler(sched);
            ScsiDevice sdev = disk.scsiDevice();
            int qd = sdev.changeQueueDepth(depth);
            DiskSetTarget target = new DiskSetTarget(List.of(disk));
            run.warmUp(target, "read", BS, IODEPTH, JOBS);
            long cmds0 = sdev.iorequestCnt();
            long merges0 = disk.queue().merges();
            BenchResult res = run.cell(target, "read", BS, IODEPTH, JOBS);
            long cmds = sdev.iorequestCnt() - cmds0;
            long merges = disk.queue().merges() - merges0;
            mbs[s][i] = Hbas.mbPerSecond(res.read().bytesPerSecond());
            double perIo = res.read().ios() == 0 ? 0 : (double) merges / res.read().ios();
            kibPerCommand[s][i] = cmds == 0 ? 0 : res.read().bytes() / 1024.0 / cmds;
            r.ours.add(sched, qd, mbs[s][i], Math.round(res.read().iops()), cmds, merges, perIo,
                    kibPerCommand[s][i]);
            run.note("hdd-merge: " + sched + " queue_depth " + qd + " done");
            r.interrupted |= res.interrupted();
        }
    }

    /** Merges per I/O (KiB per command), not the raw merge count: the count grows with throughput alone. */
    private static void verdict(LabReport r, double[][] kibPerCommand, double[][] mbs) {
        boolean complete = r.ours.rows().size() == SCHEDULERS.length * DEPTHS.length;
        if (!complete) {
            r.verdict(expectation(), null, "");
            return;
        }
        // Judged on none, where only the budget decides whether requests wait and merge; mq-deadline is reported.
        boolean shown = kibPerCommand[0][1] > kibPerCommand[0][0] && mbs[0][1] > mbs[0][0];
        StringBuilder detail = new StringBuilder();
        for (int s = 0; s < SCHEDULERS.length; s++) {
            detail.append(String.format(Locale.ROOT, "%s%s: KiB/command %.1f vs %.1f, throughput %.2fx",
                    s == 0 ? "" : "; ", SCHEDULERS[s], kibPerCommand[s][1], kibPerCommand[s][0],
                    mbs[s][0] == 0 ? 0 : mbs[s][1] / mbs[s][0]));
        }
        r.verdict(expectation(), shown, detail.toString());
    }

    private static String expectation() {
        return "queue_depth 32 sends bigger (more merged) commands and reads faster than 255 (seed: 1.7x); judged "
                + "with scheduler none, mq-deadline shown beside";
    }
}
