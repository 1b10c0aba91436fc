package io.hostwide.tcm.backstore;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

import static io.hostwide.tcm.backstore.NativeFd.CAPTURE;
import static io.hostwide.tcm.backstore.NativeFd.EINTR;
import static io.hostwide.tcm.backstore.NativeFd.errno;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * BLKDISCARD and BLKZEROOUT through libc's {@code ioctl} with the Foreign Function &amp; Memory API (final in Java 22;
 * compiled with release 22 and only loaded by {@link BlockBackstore} on a 22+ runtime). Linux only: the request
 * numbers are {@code <linux/fs.h>}'s {@code _IO(0x12, 119)} and {@code _IO(0x12, 127)}, the same on x86-64 and
 * aarch64; both take a {@code uint64_t[2]} of byte offset and length.
 *
 * <p>The descriptor ({@link NativeFd}) is opened {@code O_EXCL}: an exclusive claim of the block device, EBUSY when
 * mounted or held; the data channel is then opened through {@code /proc/self/fd/N} so both name one device.
 */
@SuppressWarnings("restricted") // downcallHandle: native access is granted by Enable-Native-Access / the argLine
final class NativeBlockIoctls implements BlockIoctls {
    static final long BLKDISCARD = 0x1277;
    static final long BLKZEROOUT = 0x127f;
    static final int EBUSY = 16;
    static final int EINVAL = 22;

    private static final MethodHandle IOCTL = NativeFd.LINKER.downcallHandle(NativeFd.LIBC.find("ioctl").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), Linker.Option.firstVariadicArg(2),
            NativeFd.ERRNO_OPTION);

    private final NativeFd file;

    private NativeBlockIoctls(NativeFd file) {
        this.file = file;
    }

    /** Opens the block device {@code path} read-write and exclusively; called reflectively by {@link BlockBackstore}. */
    static BlockIoctls open(Path path) throws IOException {
        return new NativeBlockIoctls(NativeFd.open(path, NativeFd.O_RDWR | NativeFd.O_EXCL, e -> e == EBUSY
                ? new DeviceBusyException(path + " is in use (mounted, or held by device-mapper, md or another "
                        + "program with an exclusive open): refusing to export it")
                : new IOException("open " + path + " failed: " + errnoName(e))));
    }

    @Override
    public boolean available() { return true; }

    @Override
    public Path sameFile(Path original) { return file.procPath(); }

    @Override
    public void discard(long offset, long length) throws IOException { rangeIoctl(BLKDISCARD, "BLKDISCARD", offset, length); }

    @Override
    public void zeroOut(long offset, long length) throws IOException { rangeIoctl(BLKZEROOUT, "BLKZEROOUT", offset, length); }

    private void rangeIoctl(long request, String what, long offset, long length) throws IOException {
        file.enterOrThrow();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment range = arena.allocate(JAVA_LONG, 2);
            range.setAtIndex(JAVA_LONG, 0, offset);
            range.setAtIndex(JAVA_LONG, 1, length);
            MemorySegment state = arena.allocate(CAPTURE);
            while (ioctl(state, file.fd(), request, range) != 0) {
                int e = errno(state);
                if (e != EINTR) {
                    throw new IOException(what + " " + file.path() + " at " + offset + "+" + length + " failed: "
                            + errnoName(e));
                }
            }
        } finally {
            file.exit();
        }
    }

    @Override
    public String describe() { return "native ioctls"; }

    @Override
    public void close() throws IOException { file.close(); }

    private static String errnoName(int e) {
        return e == EINVAL ? "EINVAL (the device does not support this operation)" : NativeFd.errnoName(e);
    }

    // invokeExact needs the exact static types.
    private static int ioctl(MemorySegment state, int fd, long request, MemorySegment arg) {
        try {
            return (int) IOCTL.invokeExact(state, fd, request, arg);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
