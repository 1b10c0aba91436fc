package io.hostwide.tcm.backstore;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;

/**
 * What a block backstore needs from the kernel beyond {@link java.nio.channels.FileChannel}: discarding a byte
 * range ({@code ioctl(BLKDISCARD)}) and zeroing one in the device ({@code ioctl(BLKZEROOUT)}). Java 21 has
 * neither, so there are two implementations, chosen when the device is opened: {@code NativeBlockIoctls} (Java 22+
 * Foreign Function &amp; Memory API, Linux) and {@link Unavailable} (no discard; zeros are written through the
 * channel by the caller).
 *
 * <p>The native side also opens the device exclusively ({@code O_EXCL} without {@code O_CREAT}: the kernel's
 * block-device claim), so a device that is mounted or held by device-mapper, md or another target is refused with
 * EBUSY instead of being written under a filesystem.
 *
 * <p>Thread safety: every method may be called concurrently with itself and with channel I/O.
 */
interface BlockIoctls extends Closeable {

    /** True when {@link #discard} and {@link #zeroOut} reach the kernel. */
    boolean available();

    /**
     * BLKDISCARD of {@code [offset, offset + length)} (whole logical blocks). What discarded blocks read as is the
     * device's business (a loop device over a file punches holes, so zeros; an SSD may return anything).
     */
    void discard(long offset, long length) throws IOException;

    /** BLKZEROOUT of {@code [offset, offset + length)}: the range reads as zeros afterwards, whatever the device. */
    void zeroOut(long offset, long length) throws IOException;

    /**
     * The path through which a second open reaches exactly the device these ioctls act on: {@code original} when
     * unavailable, {@code /proc/self/fd/N} for the native one (see {@link FileAccess}).
     */
    Path sameFile(Path original);

    /** "native" or "unavailable (why)", for dumps. */
    String describe();

    /** The fallback: no ioctls at all. */
    record Unavailable(String reason) implements BlockIoctls {
        @Override
        public boolean available() { return false; }

        @Override
        public void discard(long offset, long length) throws IOException {
            throw new IOException("BLKDISCARD unavailable: " + reason);
        }

        @Override
        public void zeroOut(long offset, long length) throws IOException {
            throw new IOException("BLKZEROOUT unavailable: " + reason);
        }

        @Override
        public Path sameFile(Path original) { return original; }

        @Override
        public String describe() { return "no ioctls (" + reason + ")"; }

        @Override
        public void close() {}
    }
}
