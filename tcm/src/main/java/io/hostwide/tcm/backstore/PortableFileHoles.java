package io.hostwide.tcm.backstore;

/**
 * The fallback when no native hole support is available (Java 21, not Linux, no {@code /proc}, or forced): nothing
 * is ever deallocated, so the file backstore writes zeros for UNMAP, and every block is reported as data, which
 * GET LBA STATUS turns into "mapped or unknown" (SBC-4 §5.8, status 0) — true, since the blocks stay allocated.
 */
final class PortableFileHoles implements FileHoles {
    private final String reason;

    PortableFileHoles(String reason) {
        this.reason = reason;
    }

    @Override
    public boolean tracksAllocation() { return false; }

    @Override
    public boolean canPunch() { return false; }

    @Override
    public boolean punchHole(long offset, long length) { return false; }

    @Override
    public long nextData(long offset) { return offset; }

    @Override
    public long nextHole(long offset) { return NONE; }

    @Override
    public String describe() { return "portable (" + reason + ")"; }

    @Override
    public void close() {}
}
