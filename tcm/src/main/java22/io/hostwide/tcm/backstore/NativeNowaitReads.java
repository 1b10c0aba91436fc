package io.hostwide.tcm.backstore;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.file.Path;

import static io.hostwide.tcm.backstore.NativeFd.CAPTURE;
import static io.hostwide.tcm.backstore.NativeFd.EINTR;
import static io.hostwide.tcm.backstore.NativeFd.errno;
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
 * <p>Writes ({@link #write}, {@code pwritev2}) follow the same rule: plain on tmpfs and ramfs (a page of memory, no
 * device behind it), {@code RWF_NOWAIT} elsewhere. Whether a filesystem takes {@code RWF_NOWAIT} for buffered
 * <em>writes</em> cannot be probed without writing (a zero-length write returns before the flag is looked at): xfs
 * and btrfs do (Linux 6.0/6.1, FMODE_BUF_WASYNC), ext4's buffered path answers EOPNOTSUPP. So the first
 * EOPNOTSUPP switches writes off for good, and that write and every later one go to the I/O queue.
 *
 * <p>The descriptor is this class's own ({@link NativeFd}), opened {@code O_RDWR} (the backstore's channel needs
 * write access to the file anyway); the backstore's channel is then opened through {@code /proc/self/fd/N}, so
 * both name one inode.
 */
@SuppressWarnings("restricted") // downcallHandle: native access is granted by Enable-Native-Access / the argLine
final class NativeNowaitReads implements NowaitReads {
    static final int RWF_NOWAIT = 0x8;
    static final int EAGAIN = 11;
    static final int EOPNOTSUPP = 95;
    static final long TMPFS_MAGIC = 0x01021994L;
    static final long RAMFS_MAGIC = 0x858458f6L;
    /** struct statfs on 64-bit Linux is 120 bytes; f_type is its first field, a long. */
    static final int STATFS_BYTES = 120;

    /** struct iovec: void *iov_base; size_t iov_len. */
    private static final long IOVEC_BYTES = 16;
    private static final MethodHandle PREADV2 = NativeFd.LINKER.downcallHandle(
            NativeFd.LIBC.find("preadv2").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT), NativeFd.ERRNO_OPTION);
    private static final MethodHandle PWRITEV2 = NativeFd.LINKER.downcallHandle(
            NativeFd.LIBC.find("pwritev2").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT), NativeFd.ERRNO_OPTION);
    private static final MethodHandle FSTATFS = NativeFd.LINKER.downcallHandle(
            NativeFd.LIBC.find("fstatfs").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), NativeFd.ERRNO_OPTION);

    /**
     * Per thread: an iovec and the errno capture, so that a read allocates nothing. Connection threads are few and
     * long-lived; the memory goes with the thread (automatic arena).
     */
    private static final ThreadLocal<MemorySegment> SCRATCH =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(IOVEC_BYTES + CAPTURE.byteSize(), 8));

    private final NativeFd file;
    /** RWF_NOWAIT, or 0 on a memory filesystem where every read is served from memory. */
    private final int flags;
    private final String how;
    /** Set (plain write, read without order) on the first EOPNOTSUPP of a write with RWF_NOWAIT; never reset. */
    private volatile boolean writesRefused;

    private NativeNowaitReads(NativeFd file, int flags, String how) {
        this.file = file;
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
        NativeFd file = NativeFd.open(path, NativeFd.O_RDWR,
                e -> new IOException("open " + path + " failed: " + NativeFd.errnoName(e)));
        try {
            int flags = probe(file.fd(), path);
            String how = flags == RWF_NOWAIT ? "page-cache reads and writes inline (preadv2/pwritev2 RWF_NOWAIT)"
                    : "reads and writes inline (memory filesystem)";
            return new NativeNowaitReads(file, flags, how);
        } catch (IOException | RuntimeException e) {
            file.close();
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
                throw new IOException("preadv2(RWF_NOWAIT) probe of " + path + " failed: " + NativeFd.errnoName(e));
            }
            MemorySegment st = arena.allocate(STATFS_BYTES, 8);
            if (fstatfs(state, fd, st) != 0) {
                throw new IOException("fstatfs " + path + " failed: " + NativeFd.errnoName(errno(state)));
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
        long r = transfer(false, offset, dst, len);
        if (r == CLOSING) {
            return WOULD_BLOCK; // the queued read answers: the backstore is closing
        }
        if (r < 0) {
            int e = (int) -r;
            if (e == EAGAIN) {
                return WOULD_BLOCK;
            }
            throw new IOException("preadv2 " + file.path() + " at " + offset + "+" + len + " failed: " + NativeFd.errnoName(e));
        }
        dst.position(dst.position() + (int) r);
        return (int) r;
    }

    @Override
    public int write(long offset, ByteBuffer src) throws IOException {
        int len = src.remaining();
        if (len == 0) {
            return 0;
        }
        if (!src.isDirect() || writesRefused) {
            return WOULD_BLOCK;
        }
        long r = transfer(true, offset, src, len);
        if (r == CLOSING) {
            return WOULD_BLOCK; // the queued write answers: the backstore is closing
        }
        if (r < 0) {
            int e = (int) -r;
            if (e == EAGAIN) {
                return WOULD_BLOCK;
            }
            if (e == EOPNOTSUPP && flags == RWF_NOWAIT) {
                writesRefused = true; // this filesystem's buffered writes cannot be told not to wait
                return WOULD_BLOCK;
            }
            throw new IOException("pwritev2 " + file.path() + " at " + offset + "+" + len + " failed: " + NativeFd.errnoName(e));
        }
        src.position(src.position() + (int) r);
        return (int) r;
    }

    @Override
    public boolean writesAvailable() { return !writesRefused; }

    @Override
    public boolean inMemory() { return flags == 0; }

    @Override
    public boolean available() { return true; }

    @Override
    public Path sameFile(Path original) { return file.procPath(); }

    @Override
    public String describe() {
        return writesRefused ? how + "; writes queued (the filesystem refuses RWF_NOWAIT writes)" : how;
    }

    @Override
    public void close() throws IOException { file.close(); }

    /** {@link #transfer}'s answer when the backstore is closing and the call was not made. */
    private static final long CLOSING = Long.MIN_VALUE;

    /**
     * One preadv2 ({@code write} false) or pwritev2 of {@code len} bytes from {@code buf}'s position at
     * {@code offset}, retried on EINTR: the bytes transferred, -errno, or {@link #CLOSING}.
     */
    private long transfer(boolean write, long offset, ByteBuffer buf, int len) {
        MemorySegment scratch = SCRATCH.get();
        MemorySegment state = scratch.asSlice(IOVEC_BYTES, CAPTURE.byteSize());
        scratch.set(ADDRESS, 0, MemorySegment.ofBuffer(buf)); // position..limit of buf
        scratch.set(JAVA_LONG, 8, len);
        if (!file.enter()) {
            return CLOSING;
        }
        long r;
        try {
            do {
                r = write ? pwritev2(state, file.fd(), scratch, 1, offset, flags)
                        : preadv2(state, file.fd(), scratch, 1, offset, flags);
            } while (r < 0 && errno(state) == EINTR);
            return r < 0 ? -errno(state) : r;
        } finally {
            file.exit();
        }
    }

    // invokeExact needs the exact static types, hence one wrapper per function.

    private static long preadv2(MemorySegment state, int fd, MemorySegment iov, int iovcnt, long offset, int flags) {
        try {
            return (long) PREADV2.invokeExact(state, fd, iov, iovcnt, offset, flags);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static long pwritev2(MemorySegment state, int fd, MemorySegment iov, int iovcnt, long offset, int flags) {
        try {
            return (long) PWRITEV2.invokeExact(state, fd, iov, iovcnt, offset, flags);
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
}
