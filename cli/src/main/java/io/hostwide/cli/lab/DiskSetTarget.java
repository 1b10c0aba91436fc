package io.hostwide.cli.lab;

import io.hostwide.cli.load.BenchTarget;
import io.hostwide.cli.load.BlockDeviceTarget;
import io.hostwide.scsi.sd.ScsiDisk;

import java.util.List;
import java.util.Map;

/**
 * Several disks of one emulated HBA as one {@link BenchTarget} for {@link io.hostwide.cli.load.BenchRunner}:
 * job {@code i} drives disk {@code i % disks}, so "one job per disk" is {@code numjobs = disks}. The
 * experiment owns the HBA; {@link #close()} leaves it open.
 */
final class DiskSetTarget implements BenchTarget {

    private final List<ScsiDisk> disks;
    /** 0: each job stays on one software queue; n > 0: jobs move to the next one every n I/Os. */
    private final int migrateEvery;

    DiskSetTarget(List<ScsiDisk> disks) {
        this(disks, 0);
    }

    /** Jobs that move between software queues every {@code migrateEvery} I/Os ({@link MigratingJobQueue}). */
    DiskSetTarget(List<ScsiDisk> disks, int migrateEvery) {
        if (disks.isEmpty()) {
            throw new IllegalArgumentException("no disks");
        }
        if (migrateEvery < 0) {
            throw new IllegalArgumentException("migrateEvery must be >= 0, got " + migrateEvery);
        }
        this.disks = List.copyOf(disks);
        this.migrateEvery = migrateEvery;
    }

    @Override
    public String description() {
        return disks.size() + " disk(s), " + disks.get(0).name() + "..";
    }

    @Override
    public int logicalBlockSize() {
        return disks.get(0).logicalBlockSize();
    }

    @Override
    public long capacityBytes() {
        long min = Long.MAX_VALUE;
        for (ScsiDisk d : disks) {
            min = Math.min(min, d.capacityBytes());
        }
        return min;
    }

    @Override
    public JobQueue openJob(int jobIndex) {
        ScsiDisk disk = disks.get(jobIndex % disks.size());
        if (migrateEvery > 0) {
            // Jobs of one disk start on different software queues, as threads on different CPUs would.
            return new MigratingJobQueue(disk, jobIndex / disks.size(), migrateEvery);
        }
        return BlockDeviceTarget.jobQueue(disk.openHandle());
    }

    @Override
    public Object stat() {
        return Map.of("scsi_host", disks.get(0).scsiDevice().host().snapshot());
    }

    @Override
    public void close() {
        // The experiment closes the HBA.
    }
}
