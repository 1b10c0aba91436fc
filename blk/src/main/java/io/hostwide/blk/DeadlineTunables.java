package io.hostwide.blk;

import java.util.List;

/**
 * mq-deadline's {@code queue/iosched/} attributes (digest §3.1), readable and
 * writable while I/O runs; the dispatcher reads each once per decision. Times are
 * in milliseconds as in sysfs.
 */
final class DeadlineTunables {
    static final List<String> NAMES = List.of("read_expire", "write_expire", "writes_starved", "fifo_batch",
            "front_merges", "async_depth");

    volatile long readExpireNanos = 500_000_000L;
    volatile long writeExpireNanos = 5_000_000_000L;
    volatile int writesStarved = 2;
    volatile int fifoBatch = 16;
    volatile boolean frontMerges = true;
    /** Shallow depth for all but synchronous reads; set from {@code nr_requests} by {@code depth_updated}. */
    volatile int asyncDepth = 1;
    /** The scheduler-tag depth the limit is checked against. */
    volatile int nrRequests = 1;

    String get(String name) {
        return switch (name) {
            case "read_expire" -> Long.toString(readExpireNanos / 1_000_000L);
            case "write_expire" -> Long.toString(writeExpireNanos / 1_000_000L);
            case "writes_starved" -> Integer.toString(writesStarved);
            case "fifo_batch" -> Integer.toString(fifoBatch);
            case "front_merges" -> frontMerges ? "1" : "0";
            case "async_depth" -> Integer.toString(asyncDepth);
            default -> throw unknown(name);
        };
    }

    void set(String name, String value) {
        long v = parse(name, value);
        switch (name) {
            case "read_expire" -> readExpireNanos = range(name, v, 0, 3_600_000L) * 1_000_000L;
            case "write_expire" -> writeExpireNanos = range(name, v, 0, 3_600_000L) * 1_000_000L;
            case "writes_starved" -> writesStarved = (int) range(name, v, 0, Integer.MAX_VALUE);
            case "fifo_batch" -> fifoBatch = (int) range(name, v, 1, Integer.MAX_VALUE);
            case "front_merges" -> frontMerges = range(name, v, 0, 1) == 1;
            case "async_depth" -> asyncDepth = (int) range(name, v, 1, nrRequests);
            default -> throw unknown(name);
        }
    }

    private static long parse(String name, String value) {
        if (!NAMES.contains(name)) {
            throw unknown(name);
        }
        try {
            return Long.parseLong(value == null ? "" : value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + "='" + value + "' is not an integer");
        }
    }

    private static long range(String name, long v, long lo, long hi) {
        if (v < lo || v > hi) {
            throw new IllegalArgumentException(name + "=" + v + " out of range " + lo + ".." + hi);
        }
        return v;
    }

    private static IllegalArgumentException unknown(String name) {
        return new IllegalArgumentException("mq-deadline has no attribute '" + name + "' (have: " + String.join(", ", NAMES) + ")");
    }
}
