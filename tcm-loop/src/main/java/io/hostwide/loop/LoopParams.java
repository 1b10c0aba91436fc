package io.hostwide.loop;

import io.hostwide.blk.SharedTagModes;
import io.hostwide.blk.TagSetConfig;
import io.hostwide.scsi.mid.RestartPolicy;
import io.hostwide.scsi.sd.DiscardMode;

import java.util.Set;

/**
 * The {@code loop:} knobs (tcm_loop over a RAM LUN): nr_hw_queues=1, can_queue=128, cmd_per_lun (default and
 * limit can_queue), host_tagset=0, size_mb=64, sector_size=512, luns=1, thin=1, delay_ns=0 (inline completion),
 * rotational=0, restart_policy=kernel, bypass_budget=0, track_queue_depth=0, io_timeout (ms), disk=0, fua=0 (FUA on
 * every WRITE), cdb_len=10 (16: always READ/WRITE(16)), shared_tags=improved (seed 001's switches, see
 * {@link SharedTagModes#parse}), scheduler (every LUN's I/O scheduler; default the disk's own, none).
 */
public final class LoopParams {
    static final Set<String> KNOWN = Set.of("nr_hw_queues", "can_queue", "cmd_per_lun", "host_tagset", "size_mb",
            "sector_size", "luns", "thin", "delay_ns", "rotational", "restart_policy", "bypass_budget",
            "track_queue_depth", "io_timeout", "disk", "fua", "cdb_len", "shared_tags", "scheduler");

    private LoopParams() {
    }

    public static LoopHbaConfig parse(String params) {
        Knobs k = new Knobs("loop", params, KNOWN);
        int sector = k.integer("sector_size", 512, 512, 4096);
        if (Integer.bitCount(sector) != 1) {
            throw new IllegalArgumentException("loop: knob 'sector_size' must be 512, 1024, 2048 or 4096, got " + sector);
        }
        int canQueue = k.integer("can_queue", 128, 1, TagSetConfig.MAX_DEPTH);
        int cmdPerLun = k.integer("cmd_per_lun", Math.min(canQueue, 4096), 1, 4096);
        if (cmdPerLun > canQueue) {
            // scsi_add_host caps cmd_per_lun at can_queue; a LUN deeper than the host's tags is a knob mistake here
            throw new IllegalArgumentException("loop: knob 'cmd_per_lun' (" + cmdPerLun + ") must not exceed can_queue ("
                    + canQueue + ")");
        }
        boolean thin = k.flag("thin", true);
        return new LoopHbaConfig("loop", 1, 1,
                k.integer("luns", 1, 1, 256),
                k.number("size_mb", 64, 1, 1 << 20) << 20,
                sector, false,
                k.number("delay_ns", 0, 0, 1_000_000_000L), 0, 0, 0,
                k.integer("nr_hw_queues", 1, 1, TagSetConfig.MAX_HW_QUEUES),
                canQueue,
                cmdPerLun,
                k.flag("host_tagset", false),
                0, 0,
                k.flag("rotational", false),
                thin,
                thin ? DiscardMode.AUTO : DiscardMode.DISABLED,
                RestartPolicy.parse(k.string("restart_policy", "kernel")),
                k.flag("bypass_budget", false),
                k.flag("track_queue_depth", false),
                k.number("io_timeout", 30_000, 1, 3_600_000),
                k.integer("disk", 0, 0, Integer.MAX_VALUE),
                k.flag("fua", false),
                cdbLen(k) == 16, sharedTags(k), scheduler(k)).validate();
    }

    /** {@code shared_tags}: {@link SharedTagModes#parse} with the knob named in the error. */
    static int sharedTags(Knobs k) {
        String v = k.string("shared_tags", "improved");
        try {
            return SharedTagModes.parse(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(k.kind() + ": knob 'shared_tags': " + e.getMessage(), e);
        }
    }

    /** {@code scheduler}, or null when not given; {@link LoopHbaConfig#validate} checks the name. */
    static String scheduler(Knobs k) {
        return k.string("scheduler", null);
    }

    static int cdbLen(Knobs k) {
        int n = k.integer("cdb_len", 10, 10, 16);
        if (n != 10 && n != 16) {
            throw new IllegalArgumentException(k.kind() + ": knob 'cdb_len' must be 10 or 16, got " + n);
        }
        return n;
    }
}
