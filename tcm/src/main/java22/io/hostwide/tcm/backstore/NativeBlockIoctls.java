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
 * BLKDISCARD and BLKZEROOUT through libc's {@code ioctl} with the Foreign Function &amp; Memory API (final in Java 22;
 * compiled with release 22 and only loaded by {@link BlockBackstore} on a 22+ runtime). Linux only: the request
 * numbers are {@code <linux/fs.h>}'s {@code _IO(0x12, 119)} and {@code _IO(0x12, 127)}, the same on x86-64 and
 * aarch64; both take a {@code uint64_t[2]} of byte offset and length.
 *
 * <p>The descriptor is this class's own, opened {@code O_EXCL} (an exclusive claim of the block device: EBUSY when
 * mounted or held); the data channel is then opened through {@code /proc/self/fd/N} so both name one device. A
 * read-write lock keeps {@link #close()} from releasing the descriptor while an ioctl uses it (a recycled number
 * could otherwise name another file).
 */
@SuppressWarnings("restricted") // downcallHandle: native access is granted by Enable-Native-Access / the argLine
final class NativeBlockIoctls implements BlockIoctls {
    static final int O_RDWR = 0x2;
    static final int O_EXCL = 0x80;
    static final int O_CLOEXEC = 0x80000;
    static final long BLKDISCARD = 0x1277;
    static final long BLKZEROOUT = 0x127f;
    static final int EINTR = 4;
    static final int EBUSY = 16;

    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final long ERRNO = CAPTURE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle OPEN;
    private static final MethodHandle IOCTL;
    private static final MethodHandle CLOSE;
    private static final Charset NAME_CHARSET = nameCharset();

    static {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        Linker.Option errno = Linker.Option.captureCallState("errno");
        OPEN = linker.downcallHandle(libc.find("open").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2), errno);
        IOCTL = linker.downcallHandle(libc.find("ioctl").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), Linker.Option.firstVariadicArg(2), errno);
        CLOSE = linker.downcallHandle(libc.find("close").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT), errno);
    }

    private final Path path;
    private final int fd;
    private final Path procPath;
    private final ReentrantReadWriteLock closeLock = new ReentrantReadWriteLock();
    private boolean closed; // guarded by closeLock

    private NativeBlockIoctls(Path path, int fd, Path procPath) {
        this.path = path;
        this.fd = fd;
        this.procPath = procPath;
    }

    /** Opens the block device {@code path} read-write and exclusively; called reflectively by {@link BlockBackstore}. */
    static BlockIoctls open(Path path) throws IOException {
        int fd;
        int e;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment name = arena.allocateFrom(path.toString(), NAME_CHARSET);
            MemorySegment state = arena.allocate(CAPTURE);
            do {
                fd = open(state, name, O_RDWR | O_EXCL | O_CLOEXEC, 0);
                e = fd < 0 ? errno(state) : 0;
            } while (fd < 0 && e == EINTR);
        }
        if (fd < 0 && e == EBUSY) {
            throw new DeviceBusyException(path + " is in use (mounted, or held by device-mapper, md or another "
                    + "program with an exclusive open): refusing to export it");
        }
        if (fd < 0) {
            throw new IOException("open " + path + " failed: " + errnoName(e));
        }
        Path proc = Path.of("/proc/self/fd/" + fd);
        if (!Files.exists(proc)) {
            closeFd(fd);
            throw new IOException("no /proc/self/fd to reopen " + path + " by descriptor");
        }
        return new NativeBlockIoctls(path, fd, proc);
    }

    @Override
    public boolean available() { return true; }

    @Override
    public Path sameFile(Path original) { return procPath; }

    @Override
    public void discard(long offset, long length) throws IOException { rangeIoctl(BLKDISCARD, "BLKDISCARD", offset, length); }

    @Override
    public void zeroOut(long offset, long length) throws IOException { rangeIoctl(BLKZEROOUT, "BLKZEROOUT", offset, length); }

    private void rangeIoctl(long request, String what, long offset, long length) throws IOException {
        closeLock.readLock().lock();
        try (Arena arena = Arena.ofConfined()) {
            if (closed) {
                throw new IOException(path + ": backstore closed");
            }
            MemorySegment range = arena.allocate(JAVA_LONG, 2);
            range.setAtIndex(JAVA_LONG, 0, offset);
            range.setAtIndex(JAVA_LONG, 1, length);
            MemorySegment state = arena.allocate(CAPTURE);
            while (ioctl(state, fd, request, range) != 0) {
                int e = errno(state);
                if (e != EINTR) {
                    throw new IOException(what + " " + path + " at " + offset + "+" + length + " failed: "
                            + errnoName(e));
                }
            }
        } finally {
            closeLock.readLock().unlock();
        }
    }

    @Override
    public String describe() { return "native ioctls"; }

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
                throw new IOException("close failed: " + errnoName(errno(state)));
            }
        }
    }

    private static int errno(MemorySegment state) { return state.get(JAVA_INT, ERRNO); }

    private static String errnoName(int e) {
        return switch (e) {
            case 1 -> "EPERM";
            case 2 -> "ENOENT";
            case 5 -> "EIO";
            case 6 -> "ENXIO";
            case 13 -> "EACCES";
            case 16 -> "EBUSY";
            case 22 -> "EINVAL (the device does not support this operation)";
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

    private static int ioctl(MemorySegment state, int fd, long request, MemorySegment arg) {
        try {
            return (int) IOCTL.invokeExact(state, fd, request, arg);
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
