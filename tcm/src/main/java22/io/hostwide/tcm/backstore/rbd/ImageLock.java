package io.hostwide.tcm.backstore.rbd;

import io.hostwide.tcm.spi.SharedOwnership;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * An RBD image's exclusive lock, managed (librbd's "managed locking": {@code rbd_lock_acquire} switches the image
 * handle to librbd's standard policy, so the lock never moves on its own, a peer's write is refused with EROFS
 * instead of pulling the lock over), as the {@link SharedOwnership} of several gateways exporting the image, and
 * the image metadata ({@code rbd_metadata_*}) as their shared table.
 *
 * <p>{@link #take()} is tcmu-runner's sequence: every current owner's lock is broken ({@code rbd_lock_break};
 * with {@code rbd_blocklist_on_break_lock}, librbd's default, the owner's client is blocklisted first, so its writes
 * still in flight fail with ESHUTDOWN at the OSDs and never land after ours), then the lock is acquired. Probed on
 * 16.2.15: a peer's {@code rbd_metadata_set} while another client holds the lock is forwarded to the holder and
 * succeeds; {@code rbd_lock_acquire} while a live peer holds it fails at once with EROFS.
 *
 * <p>Gateway lifecycle (issue 16): {@link #clientId()} is the image client's RADOS instance id ({@code
 * rados_get_instance_id}) and {@link #liveClients()} the instance ids of the image header's watchers ({@code
 * rbd_watchers_list}): every open image handle watches its header, so a gateway is alive while its id is there. A
 * SIGKILLed gateway's watch goes when the OSD's watch timeout expires, or at once when it is blocklisted.
 *
 * <p>The image handle is read through a supplier at every call, so that a backstore which reopens its image (after
 * being blocklisted) hands the new one out. The handles are this class's own (not {@link LibRbd}'s) to keep the
 * ownership calls apart from the data path.
 */
@SuppressWarnings("restricted")
final class ImageLock implements SharedOwnership {
    /**
     * Set when this client released the lock to hand it over, cleared when it takes it again: an EROFS then means
     * "not the lock holder now", not a fence (the backstore answers BUSY without reopening its client).
     */
    private final LendEpoch lent;
    private static final int RBD_LOCK_MODE_EXCLUSIVE = 0; // librbd.h rbd_lock_mode_t
    private static final int ERANGE = 34;
    private static final int EBUSY = 16;
    private static final int MAX_OWNERS = 8;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup RBD = SymbolLookup.libraryLookup("librbd.so.1", Arena.global());
    private static final MethodHandle IS_OWNER = handle("rbd_is_exclusive_lock_owner", JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle ACQUIRE = handle("rbd_lock_acquire", JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle GET_OWNERS = handle("rbd_lock_get_owners", JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
    private static final MethodHandle OWNERS_CLEANUP = LINKER.downcallHandle(RBD.find("rbd_lock_get_owners_cleanup")
            .orElseThrow(), FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG));
    private static final MethodHandle BREAK = handle("rbd_lock_break", JAVA_INT, ADDRESS, JAVA_INT, ADDRESS);
    private static final MethodHandle META_SET = handle("rbd_metadata_set", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    private static final MethodHandle META_LIST = handle("rbd_metadata_list", JAVA_INT,
            ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
    private static final MethodHandle GET_ID = handle("rbd_get_id", JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG);
    private static final MethodHandle META_REMOVE = handle("rbd_metadata_remove", JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle RELEASE = handle("rbd_lock_release", JAVA_INT, ADDRESS);
    private static final MethodHandle WATCHERS_LIST = handle("rbd_watchers_list", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    private static final MethodHandle WATCHERS_CLEANUP = LINKER.downcallHandle(RBD.find("rbd_watchers_list_cleanup")
            .orElseThrow(), FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG));
    private static final MethodHandle INSTANCE_ID = LINKER.downcallHandle(
            SymbolLookup.libraryLookup("librados.so.2", Arena.global()).find("rados_get_instance_id").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    /** rbd_image_watcher_t: char *addr; int64_t id; uint64_t cookie. */
    private static final long WATCHER_SIZE = 24;
    private static final long WATCHER_ID = 8;

    private final Supplier<MemorySegment> image;
    private final Supplier<MemorySegment> cluster;
    private final Consumer<Runnable> onClientChange;
    private final String spec;
    private final String identity;

    /**
     * @param cluster        the image client's rados_t, read at every call like {@code image}
     * @param onClientChange registers a listener run when the backstore replaces its client
     */
    ImageLock(Supplier<MemorySegment> image, Supplier<MemorySegment> cluster, Consumer<Runnable> onClientChange,
              String pool, String spec, LendEpoch lent) throws IOException {
        this.lent = lent;
        this.image = image;
        this.cluster = cluster;
        this.onClientChange = onClientChange;
        this.spec = spec;
        this.identity = "rbd:" + pool + "/" + imageId();
    }

    /** The image handle now; refused between a fence and the reopen, when the backstore has none. */
    private MemorySegment image() throws IOException {
        MemorySegment i = image.get();
        if (i.equals(MemorySegment.NULL)) {
            throw new IOException(spec + ": the image is being reopened after a fence");
        }
        return i;
    }

    private static MethodHandle handle(String name, java.lang.foreign.MemoryLayout ret,
                                       java.lang.foreign.MemoryLayout... args) {
        return LINKER.downcallHandle(RBD.find(name).orElseThrow(() ->
                new UnsatisfiedLinkError(name + " is not in the installed librbd (16.2 or later needed)")),
                FunctionDescriptor.of(ret, args));
    }

    @Override
    public String identity() { return identity; }

    @Override
    public boolean isOwner() throws IOException {
        return Native.inArena(arena -> {
            MemorySegment owner = arena.allocate(JAVA_INT);
            int r = (int) IS_OWNER.invokeExact(image(), owner);
            check(r, "rbd_is_exclusive_lock_owner");
            return owner.get(JAVA_INT, 0) != 0;
        });
    }

    @Override
    public boolean anyOwner() throws IOException {
        return !owners().isEmpty();
    }

    /** The lock owners' names (librbd's "ADDRESS/NONCE" client addresses); empty when nobody holds the lock. */
    List<String> owners() throws IOException {
        return Native.inArena(arena -> {
            MemorySegment mode = arena.allocate(JAVA_INT);
            MemorySegment list = arena.allocate(ADDRESS, MAX_OWNERS);
            MemorySegment count = arena.allocate(JAVA_LONG);
            count.set(JAVA_LONG, 0, MAX_OWNERS);
            int r = (int) GET_OWNERS.invokeExact(image(), mode, list, count);
            if (r == -Errno.ENOENT) {
                return List.of();
            }
            check(r, "rbd_lock_get_owners");
            long n = count.get(JAVA_LONG, 0);
            List<String> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                out.add(list.getAtIndex(ADDRESS, i).reinterpret(Long.MAX_VALUE).getString(0));
            }
            if (n > 0) {
                OWNERS_CLEANUP.invokeExact(list, n);
            }
            return out;
        });
    }

    @Override
    public void take() throws IOException {
        if (isOwner()) {
            return;
        }
        Native.inArena(arena -> {
            for (String owner : owners()) {
                int r = (int) BREAK.invokeExact(image(), RBD_LOCK_MODE_EXCLUSIVE, arena.allocateFrom(owner));
                if (r != -Errno.ENOENT) { // already gone: fine
                    check(r, "rbd_lock_break of " + owner);
                }
            }
            int r = (int) ACQUIRE.invokeExact(image(), RBD_LOCK_MODE_EXCLUSIVE);
            check(r, "rbd_lock_acquire");
            lent.taken();
            return null;
        });
    }

    /** rbd_lock_acquire alone: EROFS (or EBUSY) when a peer holds the lock, which is then left alone. */
    @Override
    public boolean tryTake() throws IOException {
        if (isOwner()) {
            return true;
        }
        return Native.inArena(arena -> {
            int r = (int) ACQUIRE.invokeExact(image(), RBD_LOCK_MODE_EXCLUSIVE);
            if (r == -Errno.EROFS || r == -EBUSY) {
                return false;
            }
            check(r, "rbd_lock_acquire");
            lent.taken();
            return true;
        });
    }

    @Override
    public void put(String key, String value) throws IOException {
        Native.inArena(arena -> {
            int r = (int) META_SET.invokeExact(image(), arena.allocateFrom(key), arena.allocateFrom(value));
            check(r, "rbd_metadata_set " + key);
            return null;
        });
    }

    /** rbd_metadata_list from {@code prefix}: keys and values come as two runs of NUL-terminated strings. */
    @Override
    public Map<String, String> entries(String prefix) throws IOException {
        long[] size = {4096};
        while (true) {
            Map<String, String> found = Native.inArena(arena -> {
                MemorySegment keys = arena.allocate(size[0]);
                MemorySegment values = arena.allocate(size[0]);
                MemorySegment keyLen = arena.allocate(JAVA_LONG);
                MemorySegment valLen = arena.allocate(JAVA_LONG);
                keyLen.set(JAVA_LONG, 0, size[0]);
                valLen.set(JAVA_LONG, 0, size[0]);
                // rbd_metadata_list lists the keys after its start key, never the start key itself: start just
                // before the prefix (its prefix one character shorter), so that entries(key) finds key itself
                String start = prefix.isEmpty() ? "" : prefix.substring(0, prefix.length() - 1);
                int r = (int) META_LIST.invokeExact(image(), arena.allocateFrom(start), 0L, keys, keyLen,
                        values, valLen);
                if (r == -ERANGE) {
                    size[0] = Math.max(keyLen.get(JAVA_LONG, 0), valLen.get(JAVA_LONG, 0)) + 1;
                    return null; // again, with room for them
                }
                check(r, "rbd_metadata_list");
                List<String> k = strings(keys, keyLen.get(JAVA_LONG, 0));
                List<String> v = strings(values, valLen.get(JAVA_LONG, 0));
                Map<String, String> out = new LinkedHashMap<>();
                for (int i = 0; i < k.size() && i < v.size(); i++) {
                    if (k.get(i).startsWith(prefix)) {
                        out.put(k.get(i), v.get(i));
                    }
                }
                return out;
            });
            if (found != null) {
                return found;
            }
        }
    }

    @Override
    public void remove(String key) throws IOException {
        Native.inArena(arena -> {
            int r = (int) META_REMOVE.invokeExact(image(), arena.allocateFrom(key));
            if (r != -Errno.ENOENT) {
                check(r, "rbd_metadata_remove " + key);
            }
            return null;
        });
    }

    /** rbd_lock_release when this client holds the lock. */
    @Override
    public void release() throws IOException {
        if (!isOwner()) {
            return;
        }
        Native.inArena(arena -> {
            lent.lent(); // before: a write that meets the released lock must find it set
            int r = (int) RELEASE.invokeExact(image());
            check(r, "rbd_lock_release");
            return null;
        });
    }

    @Override
    public String clientId() throws IOException {
        MemorySegment c = cluster.get();
        if (c.equals(MemorySegment.NULL)) {
            throw new IOException(spec + ": the image is being reopened after a fence");
        }
        return Native.inArena(arena -> Long.toUnsignedString((long) INSTANCE_ID.invokeExact(c)));
    }

    /** The instance ids of the image header's watchers (rbd_watchers_list, growing the array on ERANGE). */
    @Override
    public Set<String> liveClients() throws IOException {
        long[] max = {16};
        while (true) {
            Set<String> found = Native.inArena(arena -> {
                MemorySegment list = arena.allocate(WATCHER_SIZE * max[0], 8);
                MemorySegment count = arena.allocate(JAVA_LONG);
                count.set(JAVA_LONG, 0, max[0]);
                int r = (int) WATCHERS_LIST.invokeExact(image(), list, count);
                if (r == -ERANGE) {
                    max[0] = Math.max(max[0] * 2, count.get(JAVA_LONG, 0));
                    return null; // again, with room for them
                }
                check(r, "rbd_watchers_list");
                long n = count.get(JAVA_LONG, 0);
                Set<String> out = new HashSet<>();
                for (long i = 0; i < n; i++) {
                    out.add(Long.toUnsignedString(list.get(JAVA_LONG, i * WATCHER_SIZE + WATCHER_ID)));
                }
                if (n > 0) {
                    WATCHERS_CLEANUP.invokeExact(list, n);
                }
                return out;
            });
            if (found != null) {
                return found;
            }
        }
    }

    @Override
    public String clientAddress() {
        MemorySegment c = cluster.get();
        String a = c.equals(MemorySegment.NULL) ? null : RbdClient.address(c);
        return a == null ? null : RadosClient.blocklistForm(a); // as rados_blocklist_add takes it
    }

    @Override
    public void onClientChange(Runnable listener) {
        onClientChange.accept(listener);
    }

    private static List<String> strings(MemorySegment s, long len) {
        List<String> out = new ArrayList<>();
        long start = 0;
        for (long i = 0; i < len; i++) {
            if (s.get(JAVA_BYTE, i) == 0) {
                if (i > start) {
                    out.add(new String(s.asSlice(start, i - start).toArray(JAVA_BYTE), StandardCharsets.UTF_8));
                }
                start = i + 1;
            }
        }
        return out;
    }

    private String imageId() throws IOException {
        return Native.inArena(arena -> {
            MemorySegment id = arena.allocate(64);
            int r = (int) GET_ID.invokeExact(image(), id, 64L);
            check(r, "rbd_get_id");
            return id.getString(0);
        });
    }

    private void check(int r, String what) throws IOException {
        if (r < 0) {
            throw new IOException(spec + ": " + what + " failed: " + Errno.name(r));
        }
    }

    @Override
    public String toString() { return "ImageLock[" + spec + "]"; }
}
