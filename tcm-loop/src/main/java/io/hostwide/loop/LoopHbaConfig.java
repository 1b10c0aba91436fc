package io.hostwide.loop;

import io.hostwide.blk.IoSchedulers;
import io.hostwide.scsi.mid.RestartPolicy;
import io.hostwide.scsi.sd.DiscardMode;

/**
 * Everything a loop/debug HBA is built from; {@link #validate()} runs before anything is created, so bad knobs
 * never start I/O.
 *
 * @param hosts          {@code add_host}
 * @param targets        {@code num_tgts} per host
 * @param luns           {@code max_luns} per target
 * @param sizeBytes      store size ({@code dev_size_mb})
 * @param sectorSize     logical block size
 * @param perHostStore   one store per host instead of one shared by every LUN
 * @param delayNanos     completion delay; 0 completes inline in {@code queuecommand}
 * @param seekNanos      rotational LUNs: one average seek for a non-sequential access (0 = not rotational-timed)
 * @param xferBytesPerSec rotational LUNs: media transfer rate of the serial {@link SeekModel} (used when seekNanos > 0)
 * @param commandNanos   rotational LUNs: fixed cost of every command on the serial head
 * @param nrHwQueues     {@code submit_queues} / {@code nr_hw_queues}
 * @param canQueue       tag-set depth
 * @param cmdPerLun      initial per-LUN queue depth
 * @param hostTagset     host-wide tags
 * @param everyNth       error injection period
 * @param opts           error injection bits
 * @param rotational     LUNs report a rotating medium
 * @param thin           thin provisioning (LBPME, UNMAP/WRITE SAME with UNMAP)
 * @param discardMode    how the disk sends DISCARD
 * @param fuaWrites      every WRITE carries FUA
 * @param force16        READ/WRITE always use the 16-byte CDBs ({@code cdb_len=16})
 * @param sharedTagModes {@link io.hostwide.blk.SharedTagModes} of every host's tag set (seed 001's switches)
 * @param scheduler      I/O scheduler of every LUN's request queue ({@code none}, {@code mq-deadline}, ...); null
 *                       leaves the disk's own ({@code none} for SCSI disks)
 */
public record LoopHbaConfig(String kind, int hosts, int targets, int luns, long sizeBytes, int sectorSize,
                            boolean perHostStore, long delayNanos, long seekNanos, long xferBytesPerSec, long commandNanos,
                            int nrHwQueues, int canQueue,
                            int cmdPerLun, boolean hostTagset, int everyNth, int opts, boolean rotational,
                            boolean thin, DiscardMode discardMode, RestartPolicy restartPolicy,
                            boolean bypassBudgetNonRotational, boolean trackQueueDepth, long timeoutMillis,
                            int disk, boolean fuaWrites, boolean force16, int sharedTagModes,
                            String scheduler) {

    public LoopHbaConfig validate() {
        if (hosts < 1 || targets < 1 || luns < 1) {
            throw new IllegalArgumentException(kind + ": add_host, num_tgts and max_luns must be >= 1");
        }
        if (nrHwQueues < 1) {
            throw new IllegalArgumentException(kind + ": submit_queues (nr_hw_queues) must be >= 1, got " + nrHwQueues);
        }
        if (canQueue < 1) {
            throw new IllegalArgumentException(kind + ": can_queue must be >= 1, got " + canQueue);
        }
        if (cmdPerLun < 1) {
            throw new IllegalArgumentException(kind + ": cmd_per_lun must be >= 1, got " + cmdPerLun);
        }
        if ((seekNanos > 0 || commandNanos > 0) && xferBytesPerSec <= 0) {
            throw new IllegalArgumentException(kind + ": the transfer rate (xfer_mbps) must be > 0 with a seek model");
        }
        if (sizeBytes < sectorSize) {
            throw new IllegalArgumentException(kind + ": dev_size_mb smaller than one sector");
        }
        if ((opts & ~ErrorInjector.KNOWN) != 0) {
            throw new IllegalArgumentException(kind + ": opts 0x" + Integer.toHexString(opts & ~ErrorInjector.KNOWN)
                    + " not supported (supported: 0x2 medium error, 0x4 timeout, 0x10 transport error, 0x800 TASK SET FULL, 0x8000 host busy)");
        }
        int counted = opts & ErrorInjector.COUNTED;
        if (Integer.bitCount(counted) > 1) {
            throw new IllegalArgumentException(kind + ": opts 0x" + Integer.toHexString(counted) + " sets more than one "
                    + "error counted by every_nth (0x4 timeout, 0x10 transport error, 0x800 TASK SET FULL, 0x8000 host "
                    + "busy): each hit command gets one, pick one");
        }
        if (counted != 0 && everyNth == 0) {
            throw new IllegalArgumentException(kind + ": opts 0x" + Integer.toHexString(counted)
                    + " needs every_nth (which commands get the error)");
        }
        if (counted == 0 && everyNth != 0) {
            throw new IllegalArgumentException(kind + ": every_nth=" + everyNth + " needs an opts bit it counts "
                    + "(0x4 timeout, 0x10 transport error, 0x800 TASK SET FULL or 0x8000 host busy)");
        }
        if (scheduler != null) {
            // The check bench --scheduler and null:'s knob use, with this knob named.
            try {
                IoSchedulers.requireKnown(scheduler);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(kind + ": knob 'scheduler': " + e.getMessage(), e);
            }
        }
        int total = hosts * targets * luns;
        if (disk < 0 || disk >= total) {
            throw new IllegalArgumentException(kind + ": disk must be 0.." + (total - 1) + ", got " + disk);
        }
        return this;
    }

    public int disks() {
        return hosts * targets * luns;
    }

    /** This configuration with another completion latency (the rest unchanged). */
    public LoopHbaConfig withDelayNanos(long nanos) {
        return new LoopHbaConfig(kind, hosts, targets, luns, sizeBytes, sectorSize, perHostStore, nanos, seekNanos,
                xferBytesPerSec, commandNanos, nrHwQueues, canQueue, cmdPerLun, hostTagset, everyNth, opts,
                rotational, thin, discardMode, restartPolicy, bypassBudgetNonRotational, trackQueueDepth,
                timeoutMillis, disk, fuaWrites, force16, sharedTagModes, scheduler);
    }
}
