package io.hostwide.blk.nullb;

import io.hostwide.blk.IoSchedulers;
import io.hostwide.blk.TagSetConfig;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * null_blk's knobs (digest §5.1), parsed from {@code key=value} pairs such as
 * {@code "submit_queues=4,hw_queue_depth=64,completion_nsec=10000,memory_backed=1"}.
 * Every error is an {@link IllegalArgumentException} that names the knob.
 *
 * @param irqmode        0 = complete inside queue_rq, 1 = "softirq": at the end of the
 *                       dispatch batch on the dispatching thread, as one batch,
 *                       2 = timer: {@code completionNsec} later, on kblockd
 * @param completionNsec timer-mode latency; giving it without {@code irqmode} selects irqmode 2
 * @param sizeBytes      capacity ({@code gb}, or {@code size} in MiB)
 * @param sharedTags     all shared_tags devices share one tag set (TAG_QUEUE_SHARED between them)
 * @param sharedTagBitmap host-wide tags across this device's hardware queues
 * @param timeoutEvery   fault injection: every n-th request is never completed, so the
 *                       timeout handler ends it with TIMEOUT (null_blk {@code timeout};
 *                       here a plain interval, 0 = off)
 * @param requeueEvery   fault injection: every n-th request is handed back, alternating
 *                       RESOURCE and a driver requeue (null_blk {@code requeue}; 0 = off)
 * @param scheduler      {@code queue/scheduler} at creation: {@code none} or {@code mq-deadline}
 * @param rotational     {@code queue/rotational} (informational here: what a disk reports)
 * @param nomerges       {@code queue/nomerges}: 0, 1 or 2
 */
public record NullConfig(String name, int submitQueues, int hwQueueDepth, int irqmode, long completionNsec,
                         long sizeBytes, int blockSize, boolean memoryBacked, boolean discard, boolean blocking,
                         boolean sharedTags, boolean sharedTagBitmap, long ioTimeoutMillis,
                         int timeoutEvery, int requeueEvery, String scheduler, boolean rotational, int nomerges) {

    static final Set<String> KNOBS = Set.of("name", "submit_queues", "hw_queue_depth", "irqmode", "completion_nsec",
            "gb", "size", "bs", "memory_backed", "discard", "blocking", "shared_tags", "shared_tag_bitmap", "io_timeout", "timeout", "requeue",
            "scheduler", "rotational", "nomerges");

    public NullConfig {
        if (name == null || name.isEmpty() || !name.matches("[A-Za-z0-9_.-]+")) {
            throw new IllegalArgumentException("name: '" + name + "' must be letters, digits, '_', '.', '-'");
        }
        check("submit_queues", submitQueues, 1, TagSetConfig.MAX_HW_QUEUES);
        check("hw_queue_depth", hwQueueDepth, 1, TagSetConfig.MAX_DEPTH);
        check("irqmode", irqmode, 0, 2);
        check("completion_nsec", completionNsec, 0, 60_000_000_000L);
        if (blockSize < 512 || blockSize > 4096 || Integer.bitCount(blockSize) != 1) {
            throw new IllegalArgumentException("bs=" + blockSize + " must be a power of two in 512..4096");
        }
        if (sizeBytes < blockSize || sizeBytes % blockSize != 0) {
            throw new IllegalArgumentException("size: capacity " + sizeBytes + " bytes must be a positive multiple of bs=" + blockSize);
        }
        if (discard && !memoryBacked) {
            throw new IllegalArgumentException("discard=1 needs memory_backed=1");
        }
        check("io_timeout", ioTimeoutMillis, 0, 24L * 3600 * 1000);
        check("timeout", timeoutEvery, 0, Integer.MAX_VALUE);
        check("requeue", requeueEvery, 0, Integer.MAX_VALUE);
        try {
            IoSchedulers.requireKnown(scheduler);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("scheduler: " + e.getMessage(), e);
        }
        check("nomerges", nomerges, 0, 2);
    }

    private static void check(String knob, long v, long lo, long hi) {
        if (v < lo || v > hi) {
            throw new IllegalArgumentException(knob + "=" + v + " out of range " + lo + ".." + hi);
        }
    }

    /** null_blk's defaults: one queue of depth 64, softirq completion, 250 GiB, 512-byte blocks. */
    public static NullConfig defaults(String name) {
        return new NullConfig(name, 1, 64, 1, 10_000, 250L << 30, 512, false, false, false, false, false, 0, 0, 0,
                IoSchedulers.NONE, false, 0);
    }

    /** Parses comma-separated {@code key=value} pairs over the defaults; an empty string gives the defaults. */
    public static NullConfig parse(String spec, String defaultName) {
        Map<String, String> kv = split(spec);
        String name = kv.getOrDefault("name", defaultName);
        NullConfig d = defaults(name);
        int irqmode = kv.containsKey("irqmode") ? (int) num(kv, "irqmode", d.irqmode)
                : kv.containsKey("completion_nsec") ? 2 : d.irqmode;
        long size = d.sizeBytes;
        if (kv.containsKey("gb") && kv.containsKey("size")) {
            throw new IllegalArgumentException("gb and size: give one of them, not both");
        }
        if (kv.containsKey("gb")) {
            size = mul("gb", num(kv, "gb", 0), 1L << 30);
        } else if (kv.containsKey("size")) {
            size = mul("size", num(kv, "size", 0), 1L << 20);
        }
        return new NullConfig(name, (int) num(kv, "submit_queues", d.submitQueues),
                (int) num(kv, "hw_queue_depth", d.hwQueueDepth), irqmode,
                num(kv, "completion_nsec", d.completionNsec), size, (int) num(kv, "bs", d.blockSize),
                bool(kv, "memory_backed"), bool(kv, "discard"), bool(kv, "blocking"),
                bool(kv, "shared_tags"), bool(kv, "shared_tag_bitmap"), num(kv, "io_timeout", 0),
                (int) num(kv, "timeout", 0), (int) num(kv, "requeue", 0),
                kv.getOrDefault("scheduler", d.scheduler), bool(kv, "rotational"), (int) num(kv, "nomerges", 0));
    }

    private static Map<String, String> split(String spec) {
        Map<String, String> kv = new LinkedHashMap<>();
        if (spec == null || spec.isBlank()) {
            return kv;
        }
        for (String part : spec.split(",", -1)) {
            String p = part.strip();
            int eq = p.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("'" + p + "': expected knob=value");
            }
            String k = p.substring(0, eq).strip();
            String v = p.substring(eq + 1).strip();
            if (!KNOBS.contains(k)) {
                throw new IllegalArgumentException("unknown null device knob '" + k + "' (known: "
                        + String.join(", ", new java.util.TreeSet<>(KNOBS)) + ")");
            }
            if (kv.put(k, v) != null) {
                throw new IllegalArgumentException(k + ": given twice");
            }
        }
        return kv;
    }

    private static long num(Map<String, String> kv, String k, long dflt) {
        String v = kv.get(k);
        if (v == null) {
            return dflt;
        }
        try {
            long n = Long.parseLong(v);
            if (n > Integer.MAX_VALUE && !k.equals("completion_nsec") && !k.equals("gb") && !k.equals("size")
                    && !k.equals("io_timeout")) {
                throw new IllegalArgumentException(k + "=" + v + " is too large");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(k + "='" + v + "' is not an integer");
        }
    }

    private static boolean bool(Map<String, String> kv, String k) {
        String v = kv.get(k);
        if (v == null || v.equals("0")) {
            return false;
        }
        if (v.equals("1")) {
            return true;
        }
        throw new IllegalArgumentException(k + "='" + v + "' must be 0 or 1");
    }

    private static long mul(String knob, long v, long unit) {
        if (v <= 0 || v > Long.MAX_VALUE / unit) {
            throw new IllegalArgumentException(knob + "=" + v + " out of range");
        }
        return v * unit;
    }
}
