package io.hostwide.tcm.backstore.rbd;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Exact-typed invokers for {@link LibRbd}'s handles, one per C signature shape: {@code invokeExact} needs the static
 * types to match, and a generic {@code invokeWithArguments} would box every argument of every I/O. Throwables a
 * downcall cannot really throw (it has no checked exceptions) are rethrown unchecked.
 */
@SuppressWarnings("restricted") // reinterpret of malloc'd memory
final class Native {
    private Native() {}

    static int i(MethodHandle h, MemorySegment a) {
        try {
            return (int) h.invokeExact(a);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static int i(MethodHandle h, MemorySegment a, MemorySegment b) {
        try {
            return (int) h.invokeExact(a, b);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static int i(MethodHandle h, MemorySegment a, MemorySegment b, MemorySegment c) {
        try {
            return (int) h.invokeExact(a, b, c);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static int i(MethodHandle h, MemorySegment a, MemorySegment b, MemorySegment c, MemorySegment d) {
        try {
            return (int) h.invokeExact(a, b, c, d);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static int i(MethodHandle h, MemorySegment a, long b) {
        try {
            return (int) h.invokeExact(a, b);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static int i(MethodHandle h, MemorySegment a, int b, int c) {
        try {
            return (int) h.invokeExact(a, b, c);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static int i(MethodHandle h, MemorySegment a, MemorySegment b, int c) {
        try {
            return (int) h.invokeExact(a, b, c);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static int i(MethodHandle h, MemorySegment image, long off, long len, MemorySegment c) {
        try {
            return (int) h.invokeExact(image, off, len, c);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static int i(MethodHandle h, MemorySegment image, long off, long len, MemorySegment buf, MemorySegment c) {
        try {
            return (int) h.invokeExact(image, off, len, buf, c);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static int i(MethodHandle h, MemorySegment image, long off, long len, MemorySegment buf, MemorySegment c,
                 int flags) {
        try {
            return (int) h.invokeExact(image, off, len, buf, c, flags);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static int i(MethodHandle h, MemorySegment image, long off, long len, MemorySegment buf, long dataLen,
                 MemorySegment c, int flags) {
        try {
            return (int) h.invokeExact(image, off, len, buf, dataLen, c, flags);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static long l(MethodHandle h, MemorySegment image, long off, long len, MemorySegment cmp, MemorySegment buf,
                  MemorySegment mismatch, int flags) {
        try {
            return (long) h.invokeExact(image, off, len, cmp, buf, mismatch, flags);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static long l(MethodHandle h, MemorySegment a) {
        try {
            return (long) h.invokeExact(a);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static MemorySegment a(MethodHandle h, MemorySegment a) {
        try {
            return (MemorySegment) h.invokeExact(a);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static void v(MethodHandle h, MemorySegment a) {
        try {
            h.invokeExact(a);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    /** malloc(len) as a segment of that size; OutOfMemoryError when malloc fails. */
    static MemorySegment malloc(long len) {
        MemorySegment p;
        try {
            p = (MemorySegment) LibRbd.MALLOC.invokeExact(len);
        } catch (Throwable t) {
            throw unchecked(t);
        }
        if (p.equals(MemorySegment.NULL)) {
            throw new OutOfMemoryError("malloc(" + len + ") for RBD I/O buffers");
        }
        return p.reinterpret(len);
    }

    static void free(MemorySegment p) {
        if (p.equals(MemorySegment.NULL)) {
            return;
        }
        try {
            LibRbd.FREE.invokeExact(p);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static int eventfd() throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = LibRbd.newCallState(arena);
            int fd = (int) LibRbd.EVENTFD.invokeExact(state, 0, LibRbd.EFD_CLOEXEC);
            if (fd < 0) {
                throw new IOException("eventfd failed: " + Errno.name(LibRbd.errno(state)));
            }
            return fd;
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    /** Blocking read(2) of an eventfd's 8-byte counter into {@code counter}; errno in {@code state}. */
    static long read(MemorySegment state, int fd, MemorySegment counter) {
        try {
            return (long) LibRbd.READ.invokeExact(state, fd, counter, 8L);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    /** Adds 1 to an eventfd's counter, waking its reader. */
    static void wake(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = LibRbd.newCallState(arena);
            MemorySegment one = arena.allocate(JAVA_LONG);
            one.set(JAVA_LONG, 0, 1L);
            long r = (long) LibRbd.WRITE.invokeExact(state, fd, one, 8L);
            if (r != 8) {
                throw new IllegalStateException("write(eventfd) failed: " + Errno.name(LibRbd.errno(state)));
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static void close(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = LibRbd.newCallState(arena);
            int r = (int) LibRbd.CLOSE.invokeExact(state, fd);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    /** A run of downcalls given a confined arena for their arguments, freed when the run returns. */
    @FunctionalInterface
    interface ArenaCall<T> {
        T run(Arena arena) throws Throwable;
    }

    /**
     * Runs {@code body} in a fresh confined arena: an IOException or an unchecked throwable passes as it is, any
     * other Throwable (which {@code invokeExact} declares but a downcall cannot throw) as IllegalStateException.
     */
    static <T> T inArena(ArenaCall<T> body) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            return body.run(arena);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static RuntimeException unchecked(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
