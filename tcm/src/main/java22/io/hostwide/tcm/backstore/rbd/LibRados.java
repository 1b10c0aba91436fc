package io.hostwide.tcm.backstore.rbd;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Downcall handles for the object, xattr and watch/notify parts of librados.so.2 (Debian 12's 16.2 API,
 * {@code <rados/librados.h>}) and the two librbd calls that name an image's RADOS objects, which
 * {@link RadosReservationStore} uses; the client and pool handles ({@code rados_create} ...) are {@link LibRbd}'s.
 * Handles only, no policy. 16.2's C API has no single-xattr read op and no watcher listing: the store reads the
 * version through {@code rados_read_op_getxattrs} and keeps watcher addresses itself (see there).
 *
 * <p>Not on any per-command path: the store calls these from PERSISTENT RESERVE OUT/IN and notifies only, so the
 * few invokers below take their arguments boxed where no exact-typed {@link Native} shape exists.
 */
@SuppressWarnings("restricted") // libraryLookup, downcallHandle, upcallStub: native access is granted by the launcher
final class LibRados {
    private LibRados() {}

    /** librados.h LIBRADOS_CREATE_EXCLUSIVE. */
    static final int CREATE_EXCLUSIVE = 1;
    /** librados.h LIBRADOS_CMPXATTR_OP_EQ. */
    static final byte CMPXATTR_OP_EQ = 1;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup RADOS = LibRbd.MISSING == null
            ? SymbolLookup.libraryLookup("librados.so.2", Arena.global()) : null;
    private static final SymbolLookup RBD = LibRbd.MISSING == null
            ? SymbolLookup.libraryLookup("librbd.so.1", Arena.global()) : null;

    static final MethodHandle RBD_OPEN_READ_ONLY =
            handle(RBD, "rbd_open_read_only", JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle RBD_GET_ID = handle(RBD, "rbd_get_id", JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG);

    static final MethodHandle GET_INSTANCE_ID = handle(RADOS, "rados_get_instance_id", JAVA_LONG, ADDRESS);
    static final MethodHandle GETADDRS = handle(RADOS, "rados_getaddrs", JAVA_INT, ADDRESS, ADDRESS);
    static final MethodHandle BLOCKLIST_ADD = handle(RADOS, "rados_blocklist_add", JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
    static final MethodHandle WAIT_FOR_LATEST_OSDMAP = handle(RADOS, "rados_wait_for_latest_osdmap", JAVA_INT, ADDRESS);
    static final MethodHandle BUFFER_FREE = handleVoid(RADOS, "rados_buffer_free", ADDRESS);
    static final MethodHandle RMXATTR = handle(RADOS, "rados_rmxattr", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle SETXATTR =
            handle(RADOS, "rados_setxattr", JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG);

    static final MethodHandle CREATE_READ_OP = handle(RADOS, "rados_create_read_op", ADDRESS);
    static final MethodHandle RELEASE_READ_OP = handleVoid(RADOS, "rados_release_read_op", ADDRESS);
    static final MethodHandle READ_OP_GETXATTRS =
            handleVoid(RADOS, "rados_read_op_getxattrs", ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle READ_OP_READ =
            handleVoid(RADOS, "rados_read_op_read", ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle READ_OP_OPERATE =
            handle(RADOS, "rados_read_op_operate", JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT);
    static final MethodHandle GETXATTRS_NEXT =
            handle(RADOS, "rados_getxattrs_next", JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle GETXATTRS_END = handleVoid(RADOS, "rados_getxattrs_end", ADDRESS);

    static final MethodHandle CREATE_WRITE_OP = handle(RADOS, "rados_create_write_op", ADDRESS);
    static final MethodHandle RELEASE_WRITE_OP = handleVoid(RADOS, "rados_release_write_op", ADDRESS);
    static final MethodHandle WRITE_OP_CMPXATTR =
            handleVoid(RADOS, "rados_write_op_cmpxattr", ADDRESS, ADDRESS, JAVA_BYTE, ADDRESS, JAVA_LONG);
    static final MethodHandle WRITE_OP_CREATE = handleVoid(RADOS, "rados_write_op_create", ADDRESS, JAVA_INT, ADDRESS);
    static final MethodHandle WRITE_OP_WRITE_FULL =
            handleVoid(RADOS, "rados_write_op_write_full", ADDRESS, ADDRESS, JAVA_LONG);
    static final MethodHandle WRITE_OP_SETXATTR =
            handleVoid(RADOS, "rados_write_op_setxattr", ADDRESS, ADDRESS, ADDRESS, JAVA_LONG);
    static final MethodHandle WRITE_OP_OPERATE =
            handle(RADOS, "rados_write_op_operate", JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_INT);

    static final MethodHandle WATCH3 = handle(RADOS, "rados_watch3", JAVA_INT,
            ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS);
    static final MethodHandle WATCH_CHECK = handle(RADOS, "rados_watch_check", JAVA_INT, ADDRESS, JAVA_LONG);
    static final MethodHandle UNWATCH2 = handle(RADOS, "rados_unwatch2", JAVA_INT, ADDRESS, JAVA_LONG);
    static final MethodHandle WATCH_FLUSH = handle(RADOS, "rados_watch_flush", JAVA_INT, ADDRESS);
    static final MethodHandle NOTIFY2 = handle(RADOS, "rados_notify2", JAVA_INT,
            ADDRESS, ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS);
    static final MethodHandle NOTIFY_ACK = handle(RADOS, "rados_notify_ack", JAVA_INT,
            ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_INT);
    static final MethodHandle DECODE_NOTIFY_RESPONSE = handle(RADOS, "rados_decode_notify_response", JAVA_INT,
            ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle FREE_NOTIFY_RESPONSE =
            handleVoid(RADOS, "rados_free_notify_response", ADDRESS, JAVA_LONG, ADDRESS);

    /** rados_types.h struct notify_timeout_t: the watcher's client id (gid) and cookie. */
    static final long NOTIFY_TIMEOUT_SIZE = 16;

    /**
     * Upcall stub for a {@code rados_watchcb2_t}: {@code (void *arg, uint64_t notify_id, uint64_t handle,
     * uint64_t notifier_id, void *data, size_t data_len)}.
     */
    static MemorySegment watchCallback(MethodHandle target, Arena arena) {
        return LINKER.upcallStub(target,
                FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG), arena);
    }

    /** Upcall stub for a {@code rados_watcherrcb_t}: {@code (void *pre, uint64_t cookie, int err)}. */
    static MemorySegment watchErrorCallback(MethodHandle target, Arena arena) {
        return LINKER.upcallStub(target, FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG, JAVA_INT), arena);
    }

    /** Calls a handle whose shape {@link Native} has no exact invoker for (control path only: boxes). */
    static Object call(MethodHandle h, Object... args) {
        try {
            return h.invokeWithArguments(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static int callInt(MethodHandle h, Object... args) { return (int) call(h, args); }

    private static MethodHandle handle(SymbolLookup lib, String name, MemoryLayout ret, MemoryLayout... args) {
        return lookup(lib, name, FunctionDescriptor.of(ret, args));
    }

    private static MethodHandle handleVoid(SymbolLookup lib, String name, MemoryLayout... args) {
        return lookup(lib, name, FunctionDescriptor.ofVoid(args));
    }

    /** Null when the library is missing (then {@link LibRbd#MISSING} says so and nothing calls the handle). */
    private static MethodHandle lookup(SymbolLookup lib, String name, FunctionDescriptor d) {
        if (lib == null) {
            return null;
        }
        MemorySegment symbol = lib.find(name).orElseThrow(() ->
                new UnsatisfiedLinkError(name + " is not in the installed librados/librbd (16.2 or later needed)"));
        return LINKER.downcallHandle(symbol, d);
    }
}
