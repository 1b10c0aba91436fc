package io.hostwide.target.loop;

/**
 * A simple rotating-disk model for HDD experiments: a command that starts where the previous one of the LUN ended
 * costs only the base delay; any other costs one average seek ({@code seek_ns}) more. Enough to make merging and
 * sequential streams matter (seed 004) without pretending to be a real drive.
 */
final class SeekModel {
    private final long seekNanos;
    private long nextLba = -1;

    SeekModel(long seekNanos) {
        this.seekNanos = seekNanos;
    }

    /** Extra nanoseconds for an access to {@code lba .. +blocks}; called in submission order per LUN. */
    synchronized long access(long lba, long blocks) {
        long extra = lba == nextLba ? 0 : seekNanos;
        nextLba = lba + blocks;
        return extra;
    }
}
