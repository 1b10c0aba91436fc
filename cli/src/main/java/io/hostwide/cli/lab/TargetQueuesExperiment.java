package io.hostwide.cli.lab;

import io.hostwide.cli.load.BenchResult;
import io.hostwide.loop.LoopHba;
import io.hostwide.scsi.sd.ScsiDisk;
import io.hostwide.tcm.core.Pipeline;
import io.hostwide.tcm.dispatch.CommandGate;
import io.hostwide.tcm.dispatch.GateSlot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Seed 002 (Mike Christie, "target: fixes and perf improvements", 2021; digest §6.3): LIO took two locks out of
 * its I/O path, {@code lun_tg_pt_gp_lock} (the ALUA check, replaced by RCU) and {@code delayed_cmd_lock} (the
 * task-attribute bookkeeping, replaced by counters), and kept {@code dev_reservation_lock}; with tcm_loop
 * {@code nr_hw_queues} and one fio job per queue, 1.4M IOPS peaking near 8 queues became 2M near 16, and with
 * {@code emulate_pr=0} (no reservation check, so no lock) it scaled to 20 CPUs.
 *
 * <p>Here: a {@code debug:} HBA (the midlayer over tcm_loop over our target core) with {@code submit_queues} = 1, 2,
 * 4, one job per queue at iodepth 64, 4 KiB random read/write on one LUN, and no emulated latency, so the CPU is
 * the bound and a lock's cost shows. Four settings of the core: the three locks as LIO had them before the series
 * ({@link LockedGate} around the ALUA, task-attribute and reservation gates, per device), the reservation lock only
 * (LIO after the series), no reservation check at all ({@code emulate_pr=0}: the gate removed), and our own gates,
 * which take no lock. On two cores the scaling with queues ends at two; the cost per I/O of each lock is what the
 * table can still show (CPU us/IO).
 */
final class TargetQueuesExperiment implements Experiment {

    static final int[] QUEUES = {1, 2, 4};
    static final int IODEPTH = 64;
    static final int BS = 4096;
    static final String LOCKS_2020 = "3 locks (pre-2021)";
    static final String LOCK_PR = "PR lock (2021)";
    static final String NO_PR = "emulate_pr=0";
    static final String LOCK_FREE = "lock-free (ours)";
    static final String[] SETTINGS = {LOCKS_2020, LOCK_PR, NO_PR, LOCK_FREE};

    static final String KIOPS = "KIOPS";
    static final String CPU = "CPU us/IO";
    /** Run-to-run noise of one cell, CPU-bound on two shared cores: as the other experiments, about 10%. */
    static final double MARGIN = 0.10;

    @Override
    public String name() {
        return "target-queues";
    }

    @Override
    public String summary() {
        return "seed 002: target-core locks on the I/O path (ALUA, ordered, reservation) vs lock-free, 1/2/4 queues";
    }

    @Override
    public long defaultNdelayNanos() {
        return 0; // the seed's backend answers at once (ramdisk); a latency would hide what a lock costs
    }

    @Override
    public LabReport run(LabRun run) throws InterruptedException {
        long ndelay = run.ndelayOr(defaultNdelayNanos());
        LabReport r = new LabReport(name(),
                "debug:submit_queues=Q,max_queue=" + 4 * IODEPTH * QUEUES[QUEUES.length - 1] + ",ndelay=" + ndelay
                        + ",dev_size_mb=64, none, rw=randrw bs=4k numjobs=Q iodepth=" + IODEPTH + ", "
                        + run.cellNanos() / 1_000_000 + " ms per cell; locks per device (one LUN)",
                LabReport.table("core", "queues", KIOPS, "p99 us", CPU),
                "seed 002, Mike Christie 2021-09-30, vhost-scsi or tcm_loop nr_hw_queues, fio randrw 4k iodepth 64, "
                        + "numjobs = queues",
                LabReport.table("case", "IOPS")
                        .add("before the series (3 locks), ceiling near 8 queues", "1.4M")
                        .add("after (reservation lock left), ceiling near 16 queues", "2M")
                        .add("after, emulate_pr=0", "scales to 20 CPUs"));
        Medians.Repeats reps = new Medians.Repeats();
        for (int round = 1; round <= run.repeat() && !run.stopped(); round++) {
            for (int q : QUEUES) {
                for (String s : SETTINGS) {
                    if (run.stopped()) {
                        break;
                    }
                    reps.add(cell(s, q), measure(run, r, s, q, ndelay));
                    run.note("target-queues: round " + round + "/" + run.repeat() + ", " + s + ", " + q
                            + " queue(s) done");
                }
            }
        }
        for (String s : SETTINGS) {
            for (int q : QUEUES) {
                if (reps.count(cell(s, q)) > 0) {
                    r.addMedianRow(reps, cell(s, q), s, q);
                }
            }
        }
        r.interrupted |= run.stopped();
        Medians m = reps.medians();
        boolean complete = m.has(cells());
        r.verdict(expectation(), MARGIN, run.repeat(), complete ? verdict(m) : null, complete ? notes(m) : "");
        return r;
    }

    static String cell(String setting, int queues) {
        return setting + " " + queues + "q";
    }

    static List<String> cells() {
        List<String> out = new ArrayList<>();
        for (String s : SETTINGS) {
            for (int q : QUEUES) {
                out.add(cell(s, q));
            }
        }
        return out;
    }

    /** Puts the setting's locks (or the missing reservation gate) into the core's gate sequence. */
    static void configure(Pipeline p, String setting) {
        ReentrantLock aluaLock = new ReentrantLock();     // lun_tg_pt_gp_lock (one LUN: one group)
        ReentrantLock delayedLock = new ReentrantLock();  // delayed_cmd_lock
        ReentrantLock reservationLock = new ReentrantLock(); // dev_reservation_lock
        CommandGate alua = p.gate(GateSlot.ALUA);
        CommandGate ordered = p.gate(GateSlot.TASK_ATTRIBUTE);
        CommandGate reservation = p.gate(GateSlot.RESERVATION);
        switch (setting) {
            case LOCKS_2020 -> {
                p.installGate(GateSlot.ALUA, new LockedGate(alua, aluaLock, false));
                p.installGate(GateSlot.TASK_ATTRIBUTE, new LockedGate(ordered, delayedLock, true));
                p.installGate(GateSlot.RESERVATION, new LockedGate(reservation, reservationLock, false));
            }
            case LOCK_PR -> p.installGate(GateSlot.RESERVATION, new LockedGate(reservation, reservationLock, false));
            case NO_PR -> p.installGate(GateSlot.RESERVATION, null);
            case LOCK_FREE -> { }
            default -> throw new IllegalArgumentException("unknown setting " + setting);
        }
    }

    private static Map<String, Number> measure(LabRun run, LabReport r, String setting, int queues, long ndelay)
            throws InterruptedException {
        String knobs = "submit_queues=" + queues + ",max_queue=" + 4 * IODEPTH * QUEUES[QUEUES.length - 1]
                + ",ndelay=" + ndelay + ",dev_size_mb=64";
        try (LoopHba hba = Hbas.debug(knobs)) {
            configure(hba.core().pipeline(), setting);
            ScsiDisk disk = hba.disk(0);
            DiskSetTarget target = new DiskSetTarget(List.of(disk));
            run.warmUp(target, "randrw", BS, IODEPTH, queues);
            long cpu0 = LabRun.processCpuNanos();
            BenchResult res = run.cell(target, "randrw", BS, IODEPTH, queues);
            long cpu1 = LabRun.processCpuNanos();
            long ios = res.read().ios() + res.write().ios();
            r.interrupted |= res.interrupted();
            if (res.errors() > 0) {
                throw new IllegalStateException(cell(setting, queues) + ": " + res.errors() + " I/Os failed");
            }
            Map<String, Number> m = new LinkedHashMap<>();
            m.put(KIOPS, Hbas.kiops(res.read().iops() + res.write().iops()));
            m.put("p99 us", Math.max(res.read().p99(), res.write().p99()) / 1e3);
            m.put(CPU, LabRun.cpuMicrosPerIo(cpu0, cpu1, ios));
            return m;
        }
    }

    static List<String> expectation() {
        return List.of(
                "the reservation lock alone is faster than the three locks at " + max() + " queues (seed: 1.4M -> 2M)",
                "without the reservation check (emulate_pr=0) it is faster still at " + max() + " queues",
                "lock-free: 2 queues are faster than 1 (scaling up to the CPUs; 2 here)",
                "our lock-free gates keep up with emulate_pr=0 at " + max() + " queues (the check itself costs nothing)");
    }

    private static int max() {
        return QUEUES[QUEUES.length - 1];
    }

    static Verdict verdict(Medians m) {
        List<String> e = expectation();
        int q = max();
        return Verdict.of(
                Verdict.exceeds(e.get(0), m.get(cell(LOCK_PR, q), KIOPS), m.get(cell(LOCKS_2020, q), KIOPS), MARGIN),
                Verdict.exceeds(e.get(1), m.get(cell(NO_PR, q), KIOPS), m.get(cell(LOCK_PR, q), KIOPS), MARGIN),
                Verdict.exceeds(e.get(2), m.get(cell(LOCK_FREE, 2), KIOPS), m.get(cell(LOCK_FREE, 1), KIOPS), MARGIN),
                Verdict.keepsUpWith(e.get(3), m.get(cell(LOCK_FREE, q), KIOPS), m.get(cell(NO_PR, q), KIOPS),
                        MARGIN));
    }

    /** The cost of each lock per I/O, from the CPU column: what two cores can show when scaling cannot. */
    private static String notes(Medians m) {
        StringBuilder sb = new StringBuilder("CPU per I/O against lock-free (the locks' cost):");
        for (int q : QUEUES) {
            double free = m.median(cell(LOCK_FREE, q), CPU);
            sb.append(String.format(Locale.ROOT, " %dq: 3 locks %+.2f us, PR lock %+.2f us, emulate_pr=0 %+.2f us;",
                    q, m.median(cell(LOCKS_2020, q), CPU) - free, m.median(cell(LOCK_PR, q), CPU) - free,
                    m.median(cell(NO_PR, q), CPU) - free));
        }
        return sb.substring(0, sb.length() - 1);
    }
}
