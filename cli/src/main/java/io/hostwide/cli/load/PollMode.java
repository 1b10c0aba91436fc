package io.hostwide.cli.load;

import java.util.Locale;

/**
 * When bench jobs reap their own completions ({@code --poll}, fio's {@code hipri}; see {@link BenchSpec#poll()}).
 * {@link #AUTO}, the default, polls small requests and waits for large ones, as measured side by side against
 * libiscsi's {@code iscsi-perf} on an iSCSI LUN ({@code bench/scripts/initiator-vs-libiscsi.sh}, README "Our initiator
 * against libiscsi"): at 4 KiB a completion's cost is mostly its wake-ups, and polling saves one of the two
 * (0.92x against 0.71x iscsi-perf at queue depth 1 on a quiet machine, 2.7x against 1.9x at 16); at 1 MiB the cost is
 * mostly the copy of the data, which the connection's reader thread then does beside the job's submissions, and
 * polling was no better (0.84x against 0.89x at queue depth 16). Sizes in between were not measured. Polling 1 MiB
 * at queue depth 1 too was tried (it saves the reader's wake-up of the job, 21-31 against 5-6 us per I/O) and not
 * kept: over four loaded runs its CPU per I/O was higher in three (181-212 against 168-176 us), and the quietest run
 * had it at 0.88x against 0.90x iscsi-perf (README, "1 MiB at queue depth 1").
 */
public enum PollMode {
    ON,
    OFF,
    /** {@link #ON} for requests up to {@link #AUTO_MAX_BYTES}, {@link #OFF} above. */
    AUTO;

    /** The largest request {@link #AUTO} polls for. */
    public static final int AUTO_MAX_BYTES = 64 * 1024;

    /** Whether jobs issuing requests of {@code blockSize} bytes poll. */
    public boolean polls(int blockSize) {
        return switch (this) {
            case ON -> true;
            case OFF -> false;
            case AUTO -> blockSize <= AUTO_MAX_BYTES;
        };
    }

    /** {@code on}, {@code off} or {@code auto}, case-insensitively; anything else names {@code --poll}. */
    public static PollMode parse(String s) {
        return switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "on", "always", "yes", "true" -> ON;
            case "off", "never", "no", "false" -> OFF;
            case "auto" -> AUTO;
            default -> throw new IllegalArgumentException("--poll: unknown value '" + s
                    + "' (expected on, off or auto)");
        };
    }
}
