package io.hostwide.cli.copy;

/**
 * A checked copy/verify job over byte ranges of two devices.
 *
 * @param srcOffset first byte read from the source ({@code skip} × bs)
 * @param dstOffset first byte written to the destination ({@code seek} × bs)
 * @param bytes     how much to move; the last record may be partial
 * @param chunk     bytes per request (dd's bs)
 */
public record CopyPlan(long srcOffset, long dstOffset, long bytes, int chunk, int iodepth, int numjobs, long seed) {

    public CopyPlan {
        if (chunk <= 0 || iodepth < 1 || numjobs < 1 || bytes < 0) {
            throw new IllegalArgumentException("invalid copy plan");
        }
    }

    public long chunks() {
        return (bytes + chunk - 1) / chunk;
    }

    public int lengthOf(long index) {
        return (int) Math.min(chunk, bytes - index * chunk);
    }
}
