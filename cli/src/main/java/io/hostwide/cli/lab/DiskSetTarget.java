package io.hostwide.cli.lab;

import io.hostwide.cli.bench.BenchTarget;
import io.hostwide.cli.bench.BlockDeviceTarget;
import io.hostwide.scsi.sd.ScsiDisk;

import java.util.List;
import java.util.Map;

/**
 * Several disks of one emulated HBA as one {@link BenchTarget} for {@link io.hostwide.cli.bench.BenchRunner}:
 * job {@code i} drives disk {@code i % disks}, so "one job per disk" is {@code numjobs = disks}. The
 * experiment owns the HBA; {@link #close()} leaves it open.
 */
final class DiskSetTarget implements BenchTarget {

    private final List<ScsiDisk> disks;

    DiskSetTarget(List<ScsiDisk> disks) {
        if (disks.isEmpty()) {
            throw new IllegalArgumentException("no disks");
        }
        this.disks = List.copyOf(disks);
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
        return BlockDeviceTarget.jobQueue(disks.get(jobIndex % disks.size()).openHandle());
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
