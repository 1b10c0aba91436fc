package io.hostwide.cli.lab;

import io.hostwide.cli.load.BenchResult;
import io.hostwide.scsi.mid.ScsiDevice;
import io.hostwide.scsi.sd.ScsiDisk;
import io.hostwide.loop.LoopHba;

import java.util.List;
import java.util.Locale;

/**
 * Seed 003 (Yu Kuai, "remove unused 'restarts' from scsi_device", digest §4.6): jobs x iodepth at the LUN's
 * queue_depth (iodepth 1) never exhausts the budget; twice that (iodepth 2) does, and with the kernel policy
 * every completion that finds {@code restarts} non-zero re-runs all hardware queues of the LUN. The wake_one
 * policy wakes one waiting hctx per budget release instead.
 *
 * <p>As in the seed (one fio job per CPU, 128 hctx, queue_depth 128) each job submits from its own software
 * queue, so each job drives an hctx of its own, and there are as many hctxs as jobs and as queue_depth. The
 * latency is short enough that the CPU, not the budget, bounds throughput: the cost of a policy then shows as
 * lost IOPS.
 */
final class RestartsExperiment implements Experiment {

    static final int HW_QUEUES = 32;
    static final int QUEUE_DEPTH = 32;
    static final int JOBS = 32;         // JOBS x 1 = queue_depth; JOBS x 2 = 2 x queue_depth
    /** can_queue: above JOBS x 2, so host tags never bind and only the LUN's budget runs out. */
    static final int CAN_QUEUE = 128;
    static final int BS = 4096;
    static final String[] POLICIES = {"kernel", "wake_one"};
    static final int[] IODEPTHS = {1, 2};

    @Override
    public String name() {
        return "restarts";
    }

    @Override
    public String summary() {
        return "seed 003: budget exhaustion, iodepth 1 vs 2 at jobs = queue_depth, restart_policy kernel vs wake_one";
    }

    @Override
    public long defaultNdelayNanos() {
        // 32 in flight at 50 us would allow 640K IOPS; 2 cores deliver far fewer, so the CPU is the bound and
        // what a policy costs per I/O shows as lost throughput, as in the seed.
        return 50_000L;
    }

    @Override
    public LabReport run(LabRun run) throws InterruptedException {
        long ndelay = run.ndelayOr(defaultNdelayNanos());
        String base = "submit_queues=" + HW_QUEUES + ",max_queue=" + CAN_QUEUE + ",ndelay=" + ndelay;
        LabReport r = new LabReport(name(),
                "debug:" + base + ",restart_policy=P, queue_depth " + QUEUE_DEPTH + " (changeQueueDepth), none, "
                        + "rw=randwrite bs=4k numjobs=" + JOBS + ", " + run.cellNanos() / 1_000_000 + " ms per cell",
                LabReport.table("restart_policy", "iodepth", "KIOPS", "MB/s", "p99 us", "restart re-runs/IO", "CPU us/IO"),
                "seed 003, Yu Kuai 2022-11, megaraid + 4 NVMe, 128 hctx, queue_depth 128, fio 128 jobs randwrite 4k",
                LabReport.table("case", "iodepth", "bandwidth")
                        .add("with restarts (kernel)", 1, "~4 GiB/s")
                        .add("with restarts (kernel)", 2, "~0.8 GiB/s")
                        .add("restarts removed (RFC)", 2, "~4 GiB/s"));
        double[][] kiops = new double[POLICIES.length][IODEPTHS.length];
        double[][] cpu = new double[POLICIES.length][IODEPTHS.length];
        for (int p = 0; p < POLICIES.length && !run.stopped(); p++) {
            for (int d = 0; d < IODEPTHS.length && !run.stopped(); d++) {
                try (LoopHba hba = Hbas.debug(base + ",restart_policy=" + POLICIES[p])) {
                    ScsiDisk disk = hba.disk(0);
                    ScsiDevice sdev = disk.scsiDevice();
                    int qd = sdev.changeQueueDepth(QUEUE_DEPTH);
                    if (qd != QUEUE_DEPTH) {
                        throw new IllegalStateException("queue_depth " + QUEUE_DEPTH + " not accepted: " + qd);
                    }
                    DiskSetTarget target = new DiskSetTarget(List.of(disk));
                    run.warmUp(target, "randwrite", BS, IODEPTHS[d], JOBS);
                    long runs0 = sdev.restartRuns();
                    long cpu0 = LabRun.processCpuNanos();
                    BenchResult res = run.cell(target, "randwrite", BS, IODEPTHS[d], JOBS);
                    long cpu1 = LabRun.processCpuNanos();
                    long ios = res.write().ios();
                    kiops[p][d] = Hbas.kiops(res.write().iops());
                    cpu[p][d] = LabRun.cpuMicrosPerIo(cpu0, cpu1, ios);
                    r.ours.add(POLICIES[p], IODEPTHS[d], kiops[p][d], Hbas.mbPerSecond(res.write().bytesPerSecond()),
                            res.write().p99() / 1e3, ios == 0 ? 0.0 : (double) (sdev.restartRuns() - runs0) / ios,
                            cpu[p][d]);
                    run.note("restarts: " + POLICIES[p] + " iodepth " + IODEPTHS[d] + " done");
                    r.interrupted |= res.interrupted();
                }
            }
        }
        r.interrupted |= run.stopped();
        boolean complete = r.ours.rows().size() == POLICIES.length * IODEPTHS.length;
        double kernelDrop = complete ? kiops[0][1] / kiops[0][0] : 0;
        double wakeOneDrop = complete ? kiops[1][1] / kiops[1][0] : 0;
        double kernelCpu = complete ? cpu[0][1] / cpu[0][0] : 0;
        double wakeOneCpu = complete ? cpu[1][1] / cpu[1][0] : 0;
        r.verdict("kernel: iodepth 2 much slower than iodepth 1 (seed: ~0.2x); without the all-hctx re-run it "
                        + "holds (seed: ~1x); ours holds if going to iodepth 2 costs kernel more throughput than "
                        + "wake_one",
                complete ? kernelDrop < wakeOneDrop : null,
                complete ? String.format(Locale.ROOT, "iodepth 2 / iodepth 1: KIOPS kernel %.2fx, wake_one %.2fx; "
                        + "CPU per I/O kernel %.2fx, wake_one %.2fx", kernelDrop, wakeOneDrop, kernelCpu, wakeOneCpu)
                        : "");
        return r;
    }
}
