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
import java.util.function.IntFunction;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A file descriptor of our own for the native helpers of this package ({@link NativeFileHoles},
 * {@link NativeBlockIoctls}, {@link NativeNowaitReads}; compiled with release 22, loaded on a 22+ runtime only),
 * and what they share of libc through the Foreign Function &amp; Memory API: {@code open(2)} and {@code close(2)},
 * the errno capture, errno names. Linux only.
 *
 * <p>The backstore's channel is opened through {@link #procPath()} ({@code /proc/self/fd/N}), so both name one
 * inode. A read-write lock keeps {@link #close()} from releasing the descriptor while a call uses it: a recycled
 * number could otherwise name another file. Callers bracket each use with {@link #enter()} / {@link #exit()}.
 */
@SuppressWarnings("restricted") // downcallHandle: native access is granted by Enable-Native-Access / the argLine
final class NativeFd implements AutoCloseable {
    static final int O_RDONLY = 0;
    static final int O_RDWR = 0x2;
    static final int O_EXCL = 0x80;
    static final int O_CLOEXEC = 0x80000;
    static final int EINTR = 4;

    /** The errno capture every downcall of this package uses ({@link #ERRNO_OPTION}); read with {@link #errno}. */
    static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    static final Linker.Option ERRNO_OPTION = Linker.Option.captureCallState("errno");
    static final Linker LINKER = Linker.nativeLinker();
    static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final long ERRNO = CAPTURE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle OPEN = LINKER.downcallHandle(LIBC.find("open").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2),
            ERRNO_OPTION);
    private static final MethodHandle CLOSE = LINKER.downcallHandle(LIBC.find("close").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT), ERRNO_OPTION);
    /** The JDK encodes file names in sun.jnu.encoding; the native open must name the same bytes. */
    private static final Charset NAME_CHARSET = nameCharset();

    private final Path path;
    private final int fd;
    private final Path procPath;
    private final ReentrantReadWriteLock closeLock = new ReentrantReadWriteLock();
    private boolean closed; // guarded by closeLock

    private NativeFd(Path path, int fd, Path procPath) {
        this.path = path;
        this.fd = fd;
        this.procPath = procPath;
    }

    /**
     * Opens {@code path} with {@code flags} (plus O_CLOEXEC), retrying on EINTR.
     *
     * @param failed the exception for an open that failed with the given errno
     */
    static NativeFd open(Path path, int flags, IntFunction<IOException> failed) throws IOException {
        int fd;
        int e;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment name = arena.allocateFrom(path.toString(), NAME_CHARSET);
            MemorySegment state = arena.allocate(CAPTURE);
            do {
                fd = open(state, name, flags | O_CLOEXEC, 0);
                e = fd < 0 ? errno(state) : 0;
            } while (fd < 0 && e == EINTR);
        }
        if (fd < 0) {
            throw failed.apply(e);
        }
        Path proc = Path.of("/proc/self/fd/" + fd);
        if (!Files.exists(proc)) {
            closeFd(fd);
            throw new IOException("no /proc/self/fd to reopen " + path + " by descriptor");
        }
        return new NativeFd(path, fd, proc);
    }

    /** The usual failure of {@link #open}: "open PATH failed: ENAME". */
    static IntFunction<IOException> openFailed(Path path) {
        return e -> error("open " + path, e);
    }

    Path path() { return path; }

    int fd() { return fd; }

    /** {@code /proc/self/fd/N}: the same file, for the channel to open. */
    Path procPath() { return procPath; }

    /** Starts a use of the descriptor: false when it is closed (then no {@link #exit()}). */
    boolean enter() {
        closeLock.readLock().lock();
        if (closed) {
            closeLock.readLock().unlock();
            return false;
        }
        return true;
    }

    /** Like {@link #enter()}, failing with "PATH: backstore closed". */
    void enterOrThrow() throws IOException {
        if (!enter()) {
            throw new IOException(path + ": backstore closed");
        }
    }

    /** Ends a use begun by a successful {@link #enter()}. */
    void exit() {
        closeLock.readLock().unlock();
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

    static void closeFd(int fd) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            if (close(state, fd) != 0 && errno(state) != EINTR) { // Linux releases the descriptor even on EINTR
                throw error("close", errno(state));
            }
        }
    }

    static int errno(MemorySegment state) { return state.get(JAVA_INT, ERRNO); }

    static IOException error(String what, int errno) {
        return new IOException(what + " failed: " + errnoName(errno));
    }

    static String errnoName(int e) {
        return switch (e) {
            case 1 -> "EPERM";
            case 2 -> "ENOENT";
            case 5 -> "EIO";
            case 6 -> "ENXIO";
            case 9 -> "EBADF";
            case 11 -> "EAGAIN";
            case 13 -> "EACCES";
            case 16 -> "EBUSY";
            case 21 -> "EISDIR";
            case 22 -> "EINVAL";
            case 26 -> "ETXTBSY";
            case 27 -> "EFBIG";
            case 28 -> "ENOSPC";
            case 30 -> "EROFS";
            case 95 -> "EOPNOTSUPP";
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
