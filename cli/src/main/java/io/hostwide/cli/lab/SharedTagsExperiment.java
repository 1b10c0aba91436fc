package io.hostwide.cli.lab;

import io.hostwide.cli.bench.BenchResult;
import io.hostwide.scsi.sd.ScsiDisk;
import io.hostwide.target.loop.LoopHba;

import java.util.List;
import java.util.Locale;

/**
 * Seed 000 (John Garry, "blk-mq/scsi: Provide hostwide shared tags", cover letter): 12 disks behind one HBA,
 * one job per disk, host tag depth 4000 (never binding) vs 260 (jobs wait for tags), schedulers none vs
 * mq-deadline, and one hardware queue (the seed's baseline / host_tagset=0) vs 16 hardware queues sharing the
 * host's tags (host_tagset, the seed's "Final").
 */
final class SharedTagsExperiment implements Experiment {

    static final int DISKS = 12;
    static final int IODEPTH = 32;     // 12 x 32 = 384 in flight: over 260, far under 4000
    static final int BS = 4096;
    static final int[] TAG_DEPTHS = {4000, 260};
    static final String[] SCHEDULERS = {"none", "mq-deadline"};
    static final int[] HW_QUEUES = {1, 16};

    @Override
    public String name() {
        return "shared-tags";
    }

    @Override
    public String summary() {
        return "seed 000: 12 disks on one HBA, tag depth 4000 vs 260, none vs mq-deadline, 1 hw queue vs 16 with "
                + "host-wide tags";
    }

    @Override
    public long defaultNdelayNanos() {
        return 50_000L;
    }

    /** The scsi_debug knobs of one cell: 16 queues share the host's tags through host_max_queue. */
    static String knobs(int hwQueues, int depth, long ndelay) {
        String tags = hwQueues == 1 ? "max_queue=" + depth : "host_max_queue=" + depth;
        return "num_tgts=" + DISKS + ",submit_queues=" + hwQueues + "," + tags + ",ndelay=" + ndelay;
    }

    @Override
    public LabReport run(LabRun run) throws InterruptedException {
        long ndelay = run.ndelayOr(defaultNdelayNanos());
        LabReport r = new LabReport(name(),
                "debug:" + knobs(1, 4000, ndelay) + " | debug:" + knobs(16, 4000, ndelay) + " (and 260), rw=randread "
                        + "bs=4k, one job per disk, iodepth=" + IODEPTH + ", " + run.cellNanos() / 1_000_000
                        + " ms per cell",
                LabReport.table("hw_queues", "host_tagset", "scheduler", "tag depth", "KIOPS", "p99 us"),
                "seed 000, John Garry, cover letter of the host_tagset series, 12x SAS SSD on hisi_sas v3",
                LabReport.table("kernel", "scheduler", "depth 4000", "depth 260")
                        .add("baseline v5.9-rc1", "none", "2094K", "513K")
                        .add("baseline v5.9-rc1", "mq-deadline", "2145K", "1336K")
                        .add("final, host_tagset=0", "none", "2120K", "550K")
                        .add("final, host_tagset=0", "mq-deadline", "2121K", "1309K")
                        .add("final", "none", "2132K", "1185(K)")
                        .add("final", "mq-deadline", "2145K", "2097(K)"));
        double[][][] kiops = new double[HW_QUEUES.length][SCHEDULERS.length][TAG_DEPTHS.length];
        for (int h = 0; h < HW_QUEUES.length && !run.stopped(); h++) {
            for (int s = 0; s < SCHEDULERS.length && !run.stopped(); s++) {
                for (int d = 0; d < TAG_DEPTHS.length && !run.stopped(); d++) {
                    kiops[h][s][d] = cell(run, r, HW_QUEUES[h], SCHEDULERS[s], TAG_DEPTHS[d], ndelay);
                }
            }
        }
        r.interrupted |= run.stopped();
        verdict(r, kiops);
        return r;
    }

    private static double cell(LabRun run, LabReport r, int hwQueues, String sched, int depth, long ndelay)
            throws InterruptedException {
        try (LoopHba hba = Hbas.debug(knobs(hwQueues, depth, ndelay))) {
            List<ScsiDisk> disks = hba.disks();
            for (ScsiDisk d : disks) {
                d.queue().setScheduler(sched);
            }
            DiskSetTarget target = new DiskSetTarget(disks);
            run.warmUp(target, "randread", BS, IODEPTH, disks.size());
            BenchResult res = run.cell(target, "randread", BS, IODEPTH, disks.size());
            double k = Hbas.kiops(res.read().iops());
            r.ours.add(hwQueues, hba.hosts().get(0).hostTagset() ? 1 : 0, sched, depth, k, res.read().p99() / 1e3);
            run.note("shared-tags: " + hwQueues + " hw queue(s), " + sched + ", depth " + depth + " done");
            r.interrupted |= res.interrupted();
            return k;
        }
    }

    /** Shape: going from 4000 to 260 tags costs the 16-queue host-wide setup no more than the 1-queue one. */
    private static void verdict(LabReport r, double[][][] kiops) {
        boolean complete = r.ours.rows().size() == HW_QUEUES.length * SCHEDULERS.length * TAG_DEPTHS.length;
        if (!complete) {
            r.verdict(expectation(), null, "");
            return;
        }
        boolean shown = true;
        StringBuilder detail = new StringBuilder("KIOPS at 260 / at 4000:");
        for (int s = 0; s < SCHEDULERS.length; s++) {
            double one = kiops[0][s][1] / kiops[0][s][0];
            double sixteen = kiops[1][s][1] / kiops[1][s][0];
            shown &= sixteen >= one;
            detail.append(String.format(Locale.ROOT, " %s 1 queue %.2fx, 16 queues %.2fx;", SCHEDULERS[s], one,
                    sixteen));
        }
        detail.setLength(detail.length() - 1);
        r.verdict(expectation(), shown, detail.toString());
    }

    private static String expectation() {
        return "depth 4000: all cells alike; depth 260 costs IOPS (most with none), and costs the 16-queue "
                + "host-wide-tags setup no more than 1 queue (seed: final 260 recovers to 1185K/2097K)";
    }
}
