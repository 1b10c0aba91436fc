package io.hostwide.loop;

import io.hostwide.blk.TagSetConfig;
import io.hostwide.scsi.mid.RestartPolicy;
import io.hostwide.scsi.sd.DiscardMode;

import java.util.Set;

/**
 * The {@code debug:} knobs, scsi_debug's module parameters (digest §5.2) with its names and defaults:
 * add_host=1, num_tgts=1, max_luns=1, dev_size_mb=8, sector_size=512, per_host_store=0, delay=1 (jiffies, 1 ms),
 * ndelay=0 (overrides delay), submit_queues=1, max_queue=192 (can_queue and cmd_per_lun), host_max_queue=0
 * (non-zero: host_tagset, can_queue and max_queue = it; an explicit different max_queue is refused), every_nth=0, opts=0,
 * rotational=0, seek_ns (rotational only; default 2 ms), xfer_mbps (rotational only, media rate in MB/s; default
 * 200) and cmd_ns (rotational only, fixed cost per command; default 0): a rotational LUN serves its commands one at
 * a time, see {@link SeekModel}, lbpu=0, lbpws=0, plus hostwide's restart_policy,
 * bypass_budget, track_queue_depth=1 (scsi_debug's template sets it), io_timeout (ms) and disk (which LUN
 * {@code open} returns), fua=0 (FUA on every WRITE), cdb_len=10 (16: always READ/WRITE(16)) and shared_tags=improved
 * ({@code old}, or {@code io.hostwide.blk.SharedTagModes} names joined by '+': seed 001's switches), and scheduler
 * (every LUN's I/O scheduler, e.g. {@code mq-deadline}; default the disk's own, none).
 */
public final class DebugParams {
    static final Set<String> KNOWN = Set.of("add_host", "num_tgts", "max_luns", "dev_size_mb", "sector_size",
            "per_host_store", "delay", "ndelay", "submit_queues", "max_queue", "host_max_queue", "every_nth", "opts",
            "rotational", "seek_ns", "xfer_mbps", "cmd_ns", "lbpu", "lbpws", "restart_policy", "bypass_budget", "track_queue_depth",
            "io_timeout", "disk", "fua", "cdb_len", "shared_tags", "scheduler");

    private DebugParams() {
    }

    public static LoopHbaConfig parse(String params) {
        Knobs k = new Knobs("debug", params, KNOWN);
        int sector = k.integer("sector_size", 512, 512, 4096);
        if (Integer.bitCount(sector) != 1) {
            throw new IllegalArgumentException("debug: knob 'sector_size' must be 512, 1024, 2048 or 4096, got " + sector);
        }
        int maxQueue = k.integer("max_queue", 192, 1, TagSetConfig.MAX_DEPTH);
        int hostMaxQueue = k.integer("host_max_queue", 0, 0, TagSetConfig.MAX_DEPTH);
        if (hostMaxQueue > 0 && k.has("max_queue") && hostMaxQueue != maxQueue) {
            // scsi_debug forces max_queue to host_max_queue; an explicit different max_queue would be overridden
            // (below) or exceed the host's tags (above), so both are refused rather than silently changed.
            throw new IllegalArgumentException("debug: knob 'host_max_queue' (" + hostMaxQueue
                    + ") " + (hostMaxQueue > maxQueue ? "must not exceed" : "forces") + " max_queue (" + maxQueue
                    + ")" + (hostMaxQueue > maxQueue ? "" : " to match: give one of them, or both equal"));
        }
        if (hostMaxQueue > 0 && !k.has("max_queue")) {
            maxQueue = hostMaxQueue;   // scsi_debug forces max_queue to match
        }
        long delayNanos = k.has("ndelay") ? k.number("ndelay", 0, 0, 999_999_999L)
                : k.number("delay", 1, 0, 10_000) * 1_000_000L;
        boolean rotational = k.flag("rotational", false);
        long seek = rotational ? k.number("seek_ns", 2_000_000L, 0, 1_000_000_000L) : 0;
        if (!rotational && k.has("seek_ns")) {
            throw new IllegalArgumentException("debug: knob 'seek_ns' needs rotational=1");
        }
        if (!rotational && k.has("xfer_mbps")) {
            throw new IllegalArgumentException("debug: knob 'xfer_mbps' needs rotational=1");
        }
        if (!rotational && k.has("cmd_ns")) {
            throw new IllegalArgumentException("debug: knob 'cmd_ns' needs rotational=1");
        }
        long xferBytesPerSec = k.number("xfer_mbps", 200, 1, 100_000) * 1_000_000L;
        long commandNanos = k.number("cmd_ns", 0, 0, 1_000_000_000L);
        boolean lbpu = k.flag("lbpu", false);
        boolean lbpws = k.flag("lbpws", false);
        DiscardMode discard = lbpu ? DiscardMode.UNMAP : lbpws ? DiscardMode.WRITE_SAME_16 : DiscardMode.DISABLED;
        return new LoopHbaConfig("debug",
                k.integer("add_host", 1, 1, 64),
                k.integer("num_tgts", 1, 1, 256),
                k.integer("max_luns", 1, 1, 256),
                k.number("dev_size_mb", 8, 1, 1 << 20) << 20,
                sector,
                k.flag("per_host_store", false),
                delayNanos, seek, xferBytesPerSec, commandNanos,
                k.integer("submit_queues", 1, 1, TagSetConfig.MAX_HW_QUEUES),
                hostMaxQueue > 0 ? hostMaxQueue : maxQueue,
                maxQueue,
                hostMaxQueue > 0,
                k.integer("every_nth", 0, Integer.MIN_VALUE + 1, Integer.MAX_VALUE),
                k.integer("opts", 0, 0, 0xFFFFF),
                rotational,
                lbpu || lbpws,
                discard,
                RestartPolicy.parse(k.string("restart_policy", "kernel")),
                k.flag("bypass_budget", false),
                k.flag("track_queue_depth", true),
                k.number("io_timeout", 30_000, 1, 3_600_000),
                k.integer("disk", 0, 0, Integer.MAX_VALUE),
                k.flag("fua", false),
                LoopParams.cdbLen(k) == 16,
                LoopParams.sharedTags(k),
                LoopParams.scheduler(k)).validate();
    }
}
