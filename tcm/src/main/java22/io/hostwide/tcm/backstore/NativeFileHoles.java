package io.hostwide.tcm.backstore;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

import static io.hostwide.tcm.backstore.NativeFd.CAPTURE;
import static io.hostwide.tcm.backstore.NativeFd.EINTR;
import static io.hostwide.tcm.backstore.NativeFd.error;
import static io.hostwide.tcm.backstore.NativeFd.errno;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Hole punching and SEEK_DATA/SEEK_HOLE through libc with the Foreign Function &amp; Memory API (final in Java 22;
 * this file is compiled with release 22 and only loaded by {@link FileAccess.NativeLoader} on a 22+ runtime).
 * Linux only: the constants are Linux's ({@code <fcntl.h>}, {@code <linux/falloc.h>}, {@code <errno.h>}; the same
 * on x86-64 and aarch64).
 *
 * <p>The descriptor is this class's own ({@link NativeFd}; the channel is then opened through
 * {@code /proc/self/fd/N}). {@code lseek} moves this descriptor's offset, which nothing else uses: data I/O goes
 * through the channel's descriptor with positional calls.
 */
@SuppressWarnings("restricted") // downcallHandle: native access is granted by Enable-Native-Access / the argLine
final class NativeFileHoles implements FileHoles {
    static final int O_RDWR = 0x2;
    static final int O_CLOEXEC = 0x80000;
    static final int FALLOC_FL_KEEP_SIZE = 0x01;
    static final int FALLOC_FL_PUNCH_HOLE = 0x02;
    static final int SEEK_DATA = 3;
    static final int SEEK_HOLE = 4;
    static final int ENXIO = 6;
    static final int EINVAL = 22;
    static final int ENOSYS = 38;
    static final int EOPNOTSUPP = 95;

    private static final MethodHandle FALLOCATE = NativeFd.LINKER.downcallHandle(
            NativeFd.LIBC.find("fallocate").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG), NativeFd.ERRNO_OPTION);
    private static final MethodHandle LSEEK = NativeFd.LINKER.downcallHandle(NativeFd.LIBC.find("lseek").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT), NativeFd.ERRNO_OPTION);

    private final NativeFd file;
    // Set once, never cleared; a stale false only costs one more failing fallocate, so plain volatile suffices.
    private volatile boolean punchUnsupported;
    private volatile boolean seekUnsupported;

    private NativeFileHoles(NativeFd file) {
        this.file = file;
    }

    /** Opens {@code path} (which must exist) read-write; called reflectively by {@link FileAccess.NativeLoader}. */
    static FileHoles open(Path path) throws IOException {
        return new NativeFileHoles(NativeFd.open(path, NativeFd.O_RDWR, NativeFd.openFailed(path)));
    }

    @Override
    public Path sameFile(Path original) { return file.procPath(); }

    @Override
    public boolean tracksAllocation() { return !seekUnsupported; }

    @Override
    public boolean canPunch() { return !punchUnsupported; }

    @Override
    public boolean punchHole(long offset, long length) throws IOException {
        if (punchUnsupported) {
            return false;
        }
        file.enterOrThrow();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            while (true) {
                if (fallocate(state, file.fd(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length) == 0) {
                    return true;
                }
                int e = errno(state);
                if (e == EOPNOTSUPP || e == ENOSYS || e == EINVAL) { // the filesystem (or kernel) cannot punch
                    punchUnsupported = true;
                    return false;
                }
                if (e != EINTR) {
                    throw error("fallocate(PUNCH_HOLE) " + file.path() + " at " + offset + "+" + length, e);
                }
            }
        } finally {
            file.exit();
        }
    }

    @Override
    public long nextData(long offset) throws IOException {
        long r = seek(offset, SEEK_DATA);
        return r == -ENXIO ? NONE : r == -EINVAL ? offset : r; // ENXIO: only hole up to EOF, or past EOF
    }

    @Override
    public long nextHole(long offset) throws IOException {
        long r = seek(offset, SEEK_HOLE);
        return r == -ENXIO ? offset : r == -EINVAL ? NONE : r; // ENXIO: at or past EOF, which reads as a hole
    }

    /** lseek; returns the offset, or -ENXIO / -EINVAL for the two answers callers interpret. */
    private long seek(long offset, int whence) throws IOException {
        if (seekUnsupported) {
            return -EINVAL;
        }
        file.enterOrThrow();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            long r = lseek(state, file.fd(), offset, whence);
            if (r >= 0) {
                return r;
            }
            int e = errno(state);
            if (e == ENXIO) {
                return -ENXIO;
            }
            if (e == EINVAL) { // a kernel without SEEK_DATA/SEEK_HOLE (before 3.1): everything counts as data
                seekUnsupported = true;
                return -EINVAL;
            }
            throw error("lseek(" + (whence == SEEK_DATA ? "SEEK_DATA" : "SEEK_HOLE") + ") " + file.path(), e);
        } finally {
            file.exit();
        }
    }

    @Override
    public String describe() {
        return "native" + (punchUnsupported ? " (filesystem cannot punch holes: UNMAP writes zeros)" : "");
    }

    @Override
    public void close() throws IOException { file.close(); }

    // invokeExact needs the exact static types, hence one wrapper per function.

    private static int fallocate(MemorySegment state, int fd, int mode, long offset, long length) {
        try {
            return (int) FALLOCATE.invokeExact(state, fd, mode, offset, length);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static long lseek(MemorySegment state, int fd, long offset, int whence) {
        try {
            return (long) LSEEK.invokeExact(state, fd, offset, whence);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
