package io.hostwide.tcm.backstore.rbd;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Downcall handles for the parts of librados.so.2, librbd.so.1 and libc the RBD backstore uses (Debian 12's 16.2
 * API, {@code <rados/librados.h>}, {@code <rbd/librbd.h>}). Handles only, no policy: {@link RbdImage} calls them.
 * Every librados/librbd call returns 0 or a positive count, or a negated errno ({@link Errno}). Pointers
 * ({@code rados_t}, {@code rados_ioctx_t}, {@code rbd_image_t}, {@code rbd_completion_t}) are plain addresses.
 *
 * <p>Loaded once, by the first RBD backstore; when a library is missing the class fails to initialise with
 * {@link #MISSING}'s message, which {@link Rbd} reports instead of a stack trace.
 */
@SuppressWarnings("restricted") // libraryLookup, downcallHandle, upcallStub: native access is granted by the launcher
final class LibRbd {
    private LibRbd() {}

    /** rbd_set_image_notification type (librbd.h, enum rbd_event_type). */
    static final int EVENT_TYPE_EVENTFD = 2;
    /** librados.h LIBRADOS_OP_FLAG_FADVISE_FUA: asks the OSD to make the write durable before answering. */
    static final int OP_FLAG_FADVISE_FUA = 0x80;
    /** features.h RBD_FEATURE_FAST_DIFF: diffs of whole objects come from the object map, not from the OSDs. */
    static final long FEATURE_FAST_DIFF = 1L << 4;
    /** librbd.h RBD_FLAG_OBJECT_MAP_INVALID | RBD_FLAG_FAST_DIFF_INVALID: the object map cannot be trusted. */
    static final long FLAGS_MAP_INVALID = 1L | 1L << 1;
    /** eventfd(2) flags (Linux, x86-64 and aarch64). */
    static final int EFD_CLOEXEC = 0x80000;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final long ERRNO = CAPTURE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option SAVE_ERRNO = Linker.Option.captureCallState("errno");

    /** Null when both libraries were found, else what to install. */
    static final String MISSING;
    private static final SymbolLookup RADOS;
    private static final SymbolLookup RBD;

    static {
        SymbolLookup rados = null;
        SymbolLookup rbd = null;
        String missing = null;
        try {
            rados = SymbolLookup.libraryLookup("librados.so.2", Arena.global());
        } catch (IllegalArgumentException e) {
            missing = "librados.so.2 not found: apt-get install librados2";
        }
        try {
            rbd = SymbolLookup.libraryLookup("librbd.so.1", Arena.global());
        } catch (IllegalArgumentException e) {
            missing = "librbd.so.1 not found: apt-get install librbd1";
        }
        MISSING = missing;
        RADOS = rados;
        RBD = rbd;
    }

    static final MethodHandle RADOS_CREATE = rados("rados_create", JAVA_INT, ADDRESS, ADDRESS);
    static final MethodHandle RADOS_CONF_READ_FILE = rados("rados_conf_read_file", JAVA_INT, ADDRESS, ADDRESS);
    static final MethodHandle RADOS_CONF_SET = rados("rados_conf_set", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle RADOS_CONF_GET = rados("rados_conf_get", JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG);
    static final MethodHandle RADOS_CONNECT = rados("rados_connect", JAVA_INT, ADDRESS);
    static final MethodHandle RADOS_SHUTDOWN = radosVoid("rados_shutdown", ADDRESS);
    static final MethodHandle RADOS_IOCTX_CREATE = rados("rados_ioctx_create", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle RADOS_IOCTX_DESTROY = radosVoid("rados_ioctx_destroy", ADDRESS);

    static final MethodHandle RBD_OPEN = rbd("rbd_open", JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle RBD_CLOSE = rbd("rbd_close", JAVA_INT, ADDRESS);
    static final MethodHandle RBD_GET_SIZE = rbd("rbd_get_size", JAVA_INT, ADDRESS, ADDRESS);
    static final MethodHandle RBD_GET_FEATURES = rbd("rbd_get_features", JAVA_INT, ADDRESS, ADDRESS);
    static final MethodHandle RBD_RESIZE = rbd("rbd_resize", JAVA_INT, ADDRESS, JAVA_LONG);
    static final MethodHandle RBD_AIO_CREATE_COMPLETION =
            rbd("rbd_aio_create_completion", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle RBD_AIO_READ = rbd("rbd_aio_read", JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS);
    static final MethodHandle RBD_AIO_WRITE2 =
            rbd("rbd_aio_write2", JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS, JAVA_INT);
    static final MethodHandle RBD_AIO_FLUSH = rbd("rbd_aio_flush", JAVA_INT, ADDRESS, ADDRESS);
    static final MethodHandle RBD_AIO_DISCARD = rbd("rbd_aio_discard", JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS);
    static final MethodHandle RBD_AIO_WRITESAME = rbd("rbd_aio_writesame", JAVA_INT,
            ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS, JAVA_INT);
    static final MethodHandle RBD_COMPARE_AND_WRITE = rbd("rbd_compare_and_write", JAVA_LONG,
            ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, JAVA_INT);
    static final MethodHandle RBD_AIO_GET_RETURN_VALUE = rbd("rbd_aio_get_return_value", JAVA_LONG, ADDRESS);
    static final MethodHandle RBD_AIO_GET_ARG = rbd("rbd_aio_get_arg", ADDRESS, ADDRESS);
    static final MethodHandle RBD_AIO_RELEASE = rbdVoid("rbd_aio_release", ADDRESS);
    static final MethodHandle RBD_SET_IMAGE_NOTIFICATION =
            rbd("rbd_set_image_notification", JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT);
    static final MethodHandle RBD_POLL_IO_EVENTS = rbd("rbd_poll_io_events", JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
    static final MethodHandle RBD_UPDATE_WATCH = rbd("rbd_update_watch", JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle RBD_UPDATE_UNWATCH = rbd("rbd_update_unwatch", JAVA_INT, ADDRESS, JAVA_LONG);

    // allocation (GET LBA STATUS) and fencing (reopen with a new client): RbdAllocation, RbdClient
    static final MethodHandle RBD_DIFF_ITERATE2 = rbd("rbd_diff_iterate2", JAVA_INT,
            ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_BYTE, JAVA_BYTE, ADDRESS, ADDRESS);
    static final MethodHandle RBD_GET_FLAGS = rbd("rbd_get_flags", JAVA_INT, ADDRESS, ADDRESS);
    static final MethodHandle RADOS_GETADDRS = rados("rados_getaddrs", JAVA_INT, ADDRESS, ADDRESS);
    static final MethodHandle RADOS_MON_COMMAND = rados("rados_mon_command", JAVA_INT,
            ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle RADOS_BUFFER_FREE = radosVoid("rados_buffer_free", ADDRESS);

    static final MethodHandle EVENTFD = libc("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    static final MethodHandle READ = libc("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    static final MethodHandle WRITE = libc("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    static final MethodHandle CLOSE = libc("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    static final MethodHandle MALLOC = LINKER.downcallHandle(LINKER.defaultLookup().find("malloc").orElseThrow(),
            FunctionDescriptor.of(ADDRESS, JAVA_LONG));
    static final MethodHandle FREE = LINKER.downcallHandle(LINKER.defaultLookup().find("free").orElseThrow(),
            FunctionDescriptor.ofVoid(ADDRESS));

    /** A state segment for the libc calls above (errno captured), to allocate once per thread that calls them. */
    static MemorySegment newCallState(Arena arena) { return arena.allocate(CAPTURE); }

    static int errno(MemorySegment state) { return state.get(JAVA_INT, ERRNO); }

    /** An upcall stub for an {@code rbd_update_callback_t} ({@code void (*)(void *arg)}), alive as long as {@code arena}. */
    static MemorySegment updateCallback(MethodHandle target, Arena arena) {
        return LINKER.upcallStub(target, FunctionDescriptor.ofVoid(ADDRESS), arena);
    }

    /**
     * An upcall stub for rbd_diff_iterate2's callback ({@code int (*)(uint64_t off, size_t len, int exists,
     * void *arg)}), alive as long as {@code arena}.
     */
    static MemorySegment diffCallback(MethodHandle target, Arena arena) {
        return LINKER.upcallStub(target, FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, ADDRESS),
                arena);
    }

    private static MethodHandle rados(String name, java.lang.foreign.MemoryLayout ret, java.lang.foreign.MemoryLayout... args) {
        return handle(RADOS, name, FunctionDescriptor.of(ret, args));
    }

    private static MethodHandle radosVoid(String name, java.lang.foreign.MemoryLayout... args) {
        return handle(RADOS, name, FunctionDescriptor.ofVoid(args));
    }

    private static MethodHandle rbd(String name, java.lang.foreign.MemoryLayout ret, java.lang.foreign.MemoryLayout... args) {
        return handle(RBD, name, FunctionDescriptor.of(ret, args));
    }

    private static MethodHandle rbdVoid(String name, java.lang.foreign.MemoryLayout... args) {
        return handle(RBD, name, FunctionDescriptor.ofVoid(args));
    }

    /** Null when the library is missing (then {@link #MISSING} says so and nothing calls the handle). */
    private static MethodHandle handle(SymbolLookup lib, String name, FunctionDescriptor d) {
        if (lib == null) {
            return null;
        }
        MemorySegment symbol = lib.find(name).orElseThrow(() ->
                new UnsatisfiedLinkError(name + " is not in the installed librados/librbd (16.2 or later needed)"));
        return LINKER.downcallHandle(symbol, d);
    }

    private static MethodHandle libc(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), d, SAVE_ERRNO);
    }
}
