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
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Reads that never wait for storage, through libc's {@code preadv2} with the Foreign Function &amp; Memory API
 * (final in Java 22; compiled with release 22 and loaded by {@link FileAccess} on a 22+ runtime only). Linux only:
 * the constants are Linux's ({@code <fcntl.h>}, {@code <linux/fs.h>}, {@code <linux/magic.h>}), the same on x86-64
 * and aarch64.
 *
 * <p>How a read avoids blocking depends on the filesystem, decided once at open by a one-byte probe:
 * <ul>
 * <li>{@code RWF_NOWAIT} (Linux 4.14+; ext4, xfs, btrfs...): the kernel copies from the page cache and answers
 *     EAGAIN, or a short read, where a page would have to be read from the device.</li>
 * <li>tmpfs and ramfs refuse {@code RWF_NOWAIT} with EOPNOTSUPP (still so in 6.18), yet their pages live in
 *     memory: a plain read never waits for a device, exactly as a RAM backstore's does. (Both can wait for swap-in
 *     on a host with swap, as any memory of this process can.)</li>
 * <li>any other filesystem that refuses it: not available; every read goes to the I/O queue as before.</li>
 * </ul>
 *
 * <p>The descriptor is this class's own, opened {@code O_RDONLY} (the backstore's channel is then opened through
 * {@code /proc/self/fd/N}, so both name one inode). A read-write lock keeps {@link #close()} from releasing it
 * while a read uses it: a recycled number could otherwise name another file.
 */
@SuppressWarnings("restricted") // downcallHandle: native access is granted by Enable-Native-Access / the argLine
final class NativeNowaitReads implements NowaitReads {
    static final int O_RDONLY = 0;
    static final int O_CLOEXEC = 0x80000;
    static final int RWF_NOWAIT = 0x8;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int EOPNOTSUPP = 95;
    static final long TMPFS_MAGIC = 0x01021994L;
    static final long RAMFS_MAGIC = 0x858458f6L;
    /** struct statfs on 64-bit Linux is 120 bytes; f_type is its first field, a long. */
    static final int STATFS_BYTES = 120;

    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final long ERRNO = CAPTURE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
    /** struct iovec: void *iov_base; size_t iov_len. */
    private static final long IOVEC_BYTES = 16;
    private static final MethodHandle OPEN;
    private static final MethodHandle PREADV2;
    private static final MethodHandle FSTATFS;
    private static final MethodHandle CLOSE;
    private static final Charset NAME_CHARSET = nameCharset();

    static {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        Linker.Option errno = Linker.Option.captureCallState("errno");
        OPEN = linker.downcallHandle(libc.find("open").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2), errno);
        PREADV2 = linker.downcallHandle(libc.find("preadv2").orElseThrow(),
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT), errno);
        FSTATFS = linker.downcallHandle(libc.find("fstatfs").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), errno);
        CLOSE = linker.downcallHandle(libc.find("close").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT), errno);
    }

    /**
     * Per thread: an iovec and the errno capture, so that a read allocates nothing. Connection threads are few and
     * long-lived; the memory goes with the thread (automatic arena).
     */
    private static final ThreadLocal<MemorySegment> SCRATCH =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(IOVEC_BYTES + CAPTURE.byteSize(), 8));

    private final Path path;
    private final int fd;
    private final Path procPath;
    /** RWF_NOWAIT, or 0 on a memory filesystem where every read is served from memory. */
    private final int flags;
    private final String how;
    private final ReentrantReadWriteLock closeLock = new ReentrantReadWriteLock();
    private boolean closed; // guarded by closeLock

    private NativeNowaitReads(Path path, int fd, Path procPath, int flags, String how) {
        this.path = path;
        this.fd = fd;
        this.procPath = procPath;
        this.flags = flags;
        this.how = how;
    }

    /**
     * Opens {@code path} (which must exist) read-only; called reflectively by {@link FileAccess}.
     *
     * @throws IOException when it cannot be opened, or the filesystem offers no non-blocking reads (the message
     *         says which; the backstore then reads through its I/O queue only)
     */
    static NowaitReads open(Path path) throws IOException {
        int fd;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment name = arena.allocateFrom(path.toString(), NAME_CHARSET);
            MemorySegment state = arena.allocate(CAPTURE);
            do {
                fd = open(state, name, O_RDONLY | O_CLOEXEC, 0);
            } while (fd < 0 && errno(state) == EINTR);
            if (fd < 0) {
                throw new IOException("open " + path + " failed: errno " + errno(state));
            }
        }
        try {
            Path proc = Path.of("/proc/self/fd/" + fd);
            if (!Files.exists(proc)) {
                throw new IOException("no /proc/self/fd to reopen " + path + " by descriptor");
            }
            int flags = probe(fd, path);
            String how = flags == RWF_NOWAIT ? "page-cache reads inline (preadv2 RWF_NOWAIT)"
                    : "reads inline (memory filesystem)";
            return new NativeNowaitReads(path, fd, proc, flags, how);
        } catch (IOException | RuntimeException e) {
            closeFd(fd);
            throw e;
        }
    }

    /** RWF_NOWAIT when the filesystem takes it, 0 on tmpfs/ramfs; an IOException saying why neither. */
    private static int probe(int fd, Path path) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment byteBuf = arena.allocate(1);
            MemorySegment iov = arena.allocate(IOVEC_BYTES, 8);
            iov.set(ADDRESS, 0, byteBuf);
            iov.set(JAVA_LONG, 8, 1);
            MemorySegment state = arena.allocate(CAPTURE);
            long r;
            do {
                r = preadv2(state, fd, iov, 1, 0, RWF_NOWAIT);
            } while (r < 0 && errno(state) == EINTR);
            if (r >= 0 || errno(state) == EAGAIN) {
                return RWF_NOWAIT;
            }
            int e = errno(state);
            if (e != EOPNOTSUPP) {
                throw new IOException("preadv2(RWF_NOWAIT) probe of " + path + " failed: errno " + e);
            }
            MemorySegment st = arena.allocate(STATFS_BYTES, 8);
            if (fstatfs(state, fd, st) != 0) {
                throw new IOException("fstatfs " + path + " failed: errno " + errno(state));
            }
            long type = st.get(JAVA_LONG, 0) & 0xFFFF_FFFFL;
            if (type == TMPFS_MAGIC || type == RAMFS_MAGIC) {
                return 0;
            }
            throw new IOException("the filesystem (magic 0x" + Long.toHexString(type) + ") refuses RWF_NOWAIT");
        }
    }

    @Override
    public int read(long offset, ByteBuffer dst) throws IOException {
        int len = dst.remaining();
        if (!dst.isDirect() || len == 0) {
            return len == 0 ? 0 : WOULD_BLOCK; // heap memory cannot be handed to the kernel without a copy
        }
        MemorySegment scratch = SCRATCH.get();
        MemorySegment state = scratch.asSlice(IOVEC_BYTES, CAPTURE.byteSize());
        scratch.set(ADDRESS, 0, MemorySegment.ofBuffer(dst)); // position..limit of dst
        scratch.set(JAVA_LONG, 8, len);
        long r;
        closeLock.readLock().lock();
        try {
            if (closed) {
                return WOULD_BLOCK; // the queued read answers: the backstore is closing
            }
            do {
                r = preadv2(state, fd, scratch, 1, offset, flags);
            } while (r < 0 && errno(state) == EINTR);
        } finally {
            closeLock.readLock().unlock();
        }
        if (r < 0) {
            int e = errno(state);
            if (e == EAGAIN) {
                return WOULD_BLOCK;
            }
            throw new IOException("preadv2 " + path + " at " + offset + "+" + len + " failed: errno " + e);
        }
        dst.position(dst.position() + (int) r);
        return (int) r;
    }

    @Override
    public boolean available() { return true; }

    @Override
    public Path sameFile(Path original) { return procPath; }

    @Override
    public String describe() { return how; }

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
                throw new IOException("close failed: errno " + errno(state));
            }
        }
    }

    private static int errno(MemorySegment state) { return state.get(JAVA_INT, ERRNO); }

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

    private static long preadv2(MemorySegment state, int fd, MemorySegment iov, int iovcnt, long offset, int flags) {
        try {
            return (long) PREADV2.invokeExact(state, fd, iov, iovcnt, offset, flags);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static int fstatfs(MemorySegment state, int fd, MemorySegment buf) {
        try {
            return (int) FSTATFS.invokeExact(state, fd, buf);
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
