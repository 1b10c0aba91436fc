package io.hostwide.loop;

/**
 * A rotating-disk model for HDD experiments (seed 004): one head per LUN serves commands one at a time, in the
 * order the LUN finished them in the target core. Each command costs a fixed overhead ({@code cmd_ns}: command
 * processing, the revolution lost between two commands), one average seek ({@code seek_ns}) unless it starts
 * where the previous one ended, and its transfer at {@code xfer_mbps}; a command queued behind others
 * waits for them. A LUN therefore delivers at most one command per (seek + transfer), however many are in
 * flight, so bigger (merged) commands are the only way to more throughput, as on a real spindle. No reordering
 * (no NCQ), no rotational latency, no cache: enough to make the budget-versus-merging trade-off measurable
 * without pretending to be a real drive.
 */
final class SeekModel {
    private final long seekNanos;
    private final long commandNanos;
    /** Transfer time per byte, in picoseconds (avoids rounding 4 KiB at 200 MB/s to whole nanoseconds per byte). */
    private final long picosPerByte;
    private long nextLba = -1;
    /** When the head finishes the last command accepted so far ({@code System.nanoTime()} scale). */
    private long headFreeNanos;
    private boolean used;

    /**
     * @param seekNanos    one average seek
     * @param bytesPerSec  media transfer rate (> 0)
     * @param commandNanos fixed cost of every command
     */
    SeekModel(long seekNanos, long bytesPerSec, long commandNanos) {
        if (seekNanos < 0 || bytesPerSec <= 0 || commandNanos < 0) {
            throw new IllegalArgumentException("seek_ns and cmd_ns must be >= 0 and the transfer rate > 0");
        }
        this.seekNanos = seekNanos;
        this.commandNanos = commandNanos;
        this.picosPerByte = Math.max(1, 1_000_000_000_000L / bytesPerSec);
    }

    /** Service time of one command alone: the overhead, a seek unless sequential, and the transfer. */
    long serviceNanos(boolean sequential, long bytes) {
        return commandNanos + (sequential ? 0 : seekNanos) + Math.multiplyExact(bytes, picosPerByte) / 1000;
    }

    /**
     * Queues an access to {@code lba .. +blocks} ({@code bytes} long) at {@code nowNanos} and returns how long
     * from now until the head has served it: the wait behind earlier commands plus this one's service time.
     */
    synchronized long access(long lba, long blocks, long bytes, long nowNanos) {
        boolean sequential = lba == nextLba;
        nextLba = lba + blocks;
        // Difference, not comparison: System.nanoTime() may wrap.
        long start = used && headFreeNanos - nowNanos > 0 ? headFreeNanos : nowNanos;
        used = true;
        headFreeNanos = start + serviceNanos(sequential, bytes);
        return headFreeNanos - nowNanos;
    }
}
