package io.hostwide.tcm.backstore;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Hole punching and SEEK_DATA/SEEK_HOLE through libc with the Foreign Function &amp; Memory API (final in Java 22;
 * this file is compiled with release 22 and only loaded by {@link FileAccess.NativeLoader} on a 22+ runtime).
 * Linux only: the constants are Linux's ({@code <fcntl.h>}, {@code <linux/falloc.h>}, {@code <errno.h>}; the same
 * on x86-64 and aarch64).
 *
 * <p>The descriptor is this class's own ({@code open(2)} of the path; the channel is then opened through
 * {@code /proc/self/fd/N}). {@code lseek} moves this descriptor's offset, which nothing else uses: data I/O goes
 * through the channel's descriptor with positional calls. A read-write lock keeps {@link #close()} from
 * releasing the descriptor while a call is using it (a recycled number could otherwise name another file).
 */
@SuppressWarnings("restricted") // downcallHandle: native access is granted by Enable-Native-Access / the argLine
final class NativeFileHoles implements FileHoles {
    static final int O_RDWR = 0x2;
    static final int O_CLOEXEC = 0x80000;
    static final int FALLOC_FL_KEEP_SIZE = 0x01;
    static final int FALLOC_FL_PUNCH_HOLE = 0x02;
    static final int SEEK_DATA = 3;
    static final int SEEK_HOLE = 4;
    static final int EINTR = 4;
    static final int ENXIO = 6;
    static final int EINVAL = 22;
    static final int ENOSYS = 38;
    static final int EOPNOTSUPP = 95;

    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final long ERRNO = CAPTURE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle OPEN;
    private static final MethodHandle FALLOCATE;
    private static final MethodHandle LSEEK;
    private static final MethodHandle CLOSE;
    /** The JDK encodes file names in sun.jnu.encoding; the native open must name the same bytes. */
    private static final Charset NAME_CHARSET = nameCharset();

    static {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        Linker.Option errno = Linker.Option.captureCallState("errno");
        OPEN = linker.downcallHandle(libc.find("open").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2), errno);
        FALLOCATE = linker.downcallHandle(libc.find("fallocate").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG), errno);
        LSEEK = linker.downcallHandle(libc.find("lseek").orElseThrow(),
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT), errno);
        CLOSE = linker.downcallHandle(libc.find("close").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT), errno);
    }

    private final Path path;
    private final int fd;
    private final Path procPath;
    private final ReentrantReadWriteLock closeLock = new ReentrantReadWriteLock();
    private boolean closed; // guarded by closeLock
    // Set once, never cleared; a stale false only costs one more failing fallocate, so plain volatile suffices.
    private volatile boolean punchUnsupported;
    private volatile boolean seekUnsupported;

    private NativeFileHoles(Path path, int fd, Path procPath) {
        this.path = path;
        this.fd = fd;
        this.procPath = procPath;
    }

    /** Opens {@code path} (which must exist) read-write; called reflectively by {@link FileAccess.NativeLoader}. */
    static FileHoles open(Path path) throws IOException {
        int fd;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment name = arena.allocateFrom(path.toString(), NAME_CHARSET);
            MemorySegment state = arena.allocate(CAPTURE);
            do {
                fd = open(state, name, O_RDWR | O_CLOEXEC, 0);
            } while (fd < 0 && errno(state) == EINTR);
            if (fd < 0) {
                throw error("open " + path, errno(state));
            }
        }
        Path proc = Path.of("/proc/self/fd/" + fd);
        if (!Files.exists(proc)) {
            closeFd(fd);
            throw new IOException("no /proc/self/fd to reopen " + path + " by descriptor");
        }
        return new NativeFileHoles(path, fd, proc);
    }

    @Override
    public Path sameFile(Path original) { return procPath; }

    @Override
    public boolean tracksAllocation() { return !seekUnsupported; }

    @Override
    public boolean canPunch() { return !punchUnsupported; }

    @Override
    public boolean punchHole(long offset, long length) throws IOException {
        if (punchUnsupported) {
            return false;
        }
        closeLock.readLock().lock();
        try (Arena arena = Arena.ofConfined()) {
            ensureOpen();
            MemorySegment state = arena.allocate(CAPTURE);
            while (true) {
                if (fallocate(state, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length) == 0) {
                    return true;
                }
                int e = errno(state);
                if (e == EOPNOTSUPP || e == ENOSYS || e == EINVAL) { // the filesystem (or kernel) cannot punch
                    punchUnsupported = true;
                    return false;
                }
                if (e != EINTR) {
                    throw error("fallocate(PUNCH_HOLE) " + path + " at " + offset + "+" + length, e);
                }
            }
        } finally {
            closeLock.readLock().unlock();
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
        closeLock.readLock().lock();
        try (Arena arena = Arena.ofConfined()) {
            ensureOpen();
            MemorySegment state = arena.allocate(CAPTURE);
            long r = lseek(state, fd, offset, whence);
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
            throw error("lseek(" + (whence == SEEK_DATA ? "SEEK_DATA" : "SEEK_HOLE") + ") " + path, e);
        } finally {
            closeLock.readLock().unlock();
        }
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException(path + ": backstore closed");
        }
    }

    @Override
    public String describe() {
        return "native" + (punchUnsupported ? " (filesystem cannot punch holes: UNMAP writes zeros)" : "");
    }

    @Override
    public void close() throws IOException {
        closeLock.writeLock().lock();
        try {
            if (!closed) {
                closed = true;
                closeFd(fd);
            }
        } finally {
            closeLock.writeLock().unlock();
        }
    }

    private static void closeFd(int fd) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            if (close(state, fd) != 0 && errno(state) != EINTR) { // Linux releases the descriptor even on EINTR
                throw error("close", errno(state));
            }
        }
    }

    private static int errno(MemorySegment state) { return state.get(JAVA_INT, ERRNO); }

    private static IOException error(String what, int errno) {
        return new IOException(what + " failed: " + errnoName(errno));
    }

    private static String errnoName(int e) {
        return switch (e) {
            case 1 -> "EPERM";
            case 2 -> "ENOENT";
            case 5 -> "EIO";
            case 9 -> "EBADF";
            case 13 -> "EACCES";
            case 21 -> "EISDIR";
            case 26 -> "ETXTBSY";
            case 27 -> "EFBIG";
            case 28 -> "ENOSPC";
            case 30 -> "EROFS";
            default -> "errno " + e;
        };
    }

    private static Charset nameCharset() {
        try {
            return Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
        } catch (RuntimeException e) {
            return StandardCharsets.UTF_8;
        }
    }

    // invokeExact needs the exact static types, hence one wrapper per function.

    private static int open(MemorySegment state, MemorySegment name, int flags, int mode) {
        try {
            return (int) OPEN.invokeExact(state, name, flags, mode);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

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

    private static int close(MemorySegment state, int fd) {
        try {
            return (int) CLOSE.invokeExact(state, fd);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
