package io.hostwide.cli.lab;

import io.hostwide.cli.load.BenchResult;
import io.hostwide.scsi.sd.ScsiDisk;
import io.hostwide.loop.LoopHba;

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
        // 2 ms: 384 / 2 ms = 192K IOPS at depth 4000, about what 2 cores can drive with CPU to spare; at 50 us
        // every cell is CPU-bound and the emulation, not the tag path, decides the figures.
        return 2_000_000L;
    }

    /** IOPS the latency allows with this many tags: min(tags, wanted) in flight, each for {@code ndelay}. */
    static double boundKiops(int depth, long ndelay) {
        return Math.min(depth, DISKS * IODEPTH) / (ndelay / 1e9) / 1e3;
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
                LabReport.table("hw_queues", "host_tagset", "scheduler", "tag depth", "KIOPS", "bound KIOPS",
                        "% of bound", "p99 us", "CPU us/IO", "tag sleeps/IO"),
                "seed 000, John Garry, cover letter of the host_tagset series, 12x SAS SSD on hisi_sas v3",
                LabReport.table("kernel", "scheduler", "depth 4000", "depth 260")
                        .add("baseline v5.9-rc1", "none", "2094K", "513K")
                        .add("baseline v5.9-rc1", "mq-deadline", "2145K", "1336K")
                        .add("final, host_tagset=0", "none", "2120K", "550K")
                        .add("final, host_tagset=0", "mq-deadline", "2121K", "1309K")
                        .add("final", "none", "2132K", "1185(K)")
                        .add("final", "mq-deadline", "2145K", "2097(K)"));
        // [hw queues][scheduler][depth][0: fraction of the bound, 1: CPU us/IO]
        double[][][][] m = new double[HW_QUEUES.length][SCHEDULERS.length][TAG_DEPTHS.length][];
        for (int h = 0; h < HW_QUEUES.length && !run.stopped(); h++) {
            for (int s = 0; s < SCHEDULERS.length && !run.stopped(); s++) {
                for (int d = 0; d < TAG_DEPTHS.length && !run.stopped(); d++) {
                    m[h][s][d] = cell(run, r, HW_QUEUES[h], SCHEDULERS[s], TAG_DEPTHS[d], ndelay);
                }
            }
        }
        r.interrupted |= run.stopped();
        verdict(r, m);
        return r;
    }

    /** Returns {fraction of the latency bound reached, CPU us/IO}. */
    private static double[] cell(LabRun run, LabReport r, int hwQueues, String sched, int depth, long ndelay)
            throws InterruptedException {
        try (LoopHba hba = Hbas.debug(knobs(hwQueues, depth, ndelay))) {
            List<ScsiDisk> disks = hba.disks();
            for (ScsiDisk d : disks) {
                d.queue().setScheduler(sched);
            }
            DiskSetTarget target = new DiskSetTarget(disks);
            run.warmUp(target, "randread", BS, IODEPTH, disks.size());
            long sleeps0 = tagSleeps(disks);
            long cpu0 = LabRun.processCpuNanos();
            BenchResult res = run.cell(target, "randread", BS, IODEPTH, disks.size());
            long cpu1 = LabRun.processCpuNanos();
            long sleeps = tagSleeps(disks) - sleeps0;
            double k = Hbas.kiops(res.read().iops());
            double bound = boundKiops(depth, ndelay);
            double cpu = LabRun.cpuMicrosPerIo(cpu0, cpu1, res.read().ios());
            r.ours.add(hwQueues, hba.hosts().get(0).hostTagset() ? 1 : 0, sched, depth, k, bound,
                    100 * k / bound, res.read().p99() / 1e3, cpu,
                    res.read().ios() == 0 ? 0.0 : (double) sleeps / res.read().ios());
            run.note("shared-tags: " + hwQueues + " hw queue(s), " + sched + ", depth " + depth + " done");
            r.interrupted |= res.interrupted();
            return new double[] {k / bound, cpu};
        }
    }

    /** Submitter sleeps in tag allocation over the cell's disks ({@code RequestQueue#tagSleeps}). */
    private static long tagSleeps(List<ScsiDisk> disks) {
        long n = 0;
        for (ScsiDisk d : disks) {
            n += d.queue().tagSleeps();
        }
        return n;
    }

    /**
     * What "costs no more" allows: the kept share of one cell moved by 0.1-0.3 between two quick runs at load
     * average 5-7 on the 2-core machine, so a smaller difference between layouts is not read as a cost.
     */
    static final double KEPT_NOISE = 0.1;

    /**
     * Shape: the fraction of the latency bound kept at depth 260, relative to that at 4000 (1.0: the tags cost only
     * the arithmetic 260/384), is lower with none than with mq-deadline on 1 queue, and for each scheduler the
     * 16-queue host-wide-tags layout keeps as much of it as 1 queue, within {@link #KEPT_NOISE}.
     */
    private static void verdict(LabReport r, double[][][][] m) {
        boolean complete = r.ours.rows().size() == HW_QUEUES.length * SCHEDULERS.length * TAG_DEPTHS.length;
        if (!complete) {
            r.verdict(expectation(), null, "");
            return;
        }
        double[][] kept = new double[HW_QUEUES.length][SCHEDULERS.length];
        StringBuilder detail = new StringBuilder("share of the bound kept at 260 vs 4000 (CPU us/IO 260 vs 4000):");
        for (int s = 0; s < SCHEDULERS.length; s++) {
            for (int h = 0; h < HW_QUEUES.length; h++) {
                kept[h][s] = m[h][s][1][0] / m[h][s][0][0];
                detail.append(String.format(Locale.ROOT, " %s %d queue(s) %.2fx (%.1fx);", SCHEDULERS[s],
                        HW_QUEUES[h], kept[h][s], m[h][s][1][1] / m[h][s][0][1]));
            }
        }
        detail.setLength(detail.length() - 1);
        boolean shown = kept[0][0] < kept[0][1];
        for (int s = 0; s < SCHEDULERS.length; s++) {
            shown &= kept[1][s] >= kept[0][s] - KEPT_NOISE;
        }
        r.verdict(expectation(), shown, detail.toString());
    }

    private static String expectation() {
        return "depth 4000: all cells alike; depth 260 costs IOPS beyond the tag arithmetic, most with none "
                + "(seed, 1 queue: none 0.25x, mq-deadline 0.62x), and costs the 16-queue host-wide-tags setup no "
                + "more than 1 queue, within " + KEPT_NOISE + " (seed: 0.56x, 0.98x)";
    }
}
