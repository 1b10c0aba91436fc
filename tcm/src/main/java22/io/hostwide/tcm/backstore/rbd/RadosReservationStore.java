package io.hostwide.tcm.backstore.rbd;

import io.hostwide.tcm.spi.ReservationStore;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The reservation state of one RBD image's LU in a RADOS object next to the image's header (issue 16 item 2), as
 * {@link ReservationStore}'s javadoc maps it onto librados: object {@code hostwide_pr.<image id>} in the image's
 * pool, the version a 20-digit xattr {@code hostwide.pr.version}, loads one read op, changes one write op guarded
 * by {@code cmpxattr}, every gateway's copy kept current by {@code rados_watch3}/{@code rados_notify2}.
 *
 * <p><b>Its own RADOS client</b>, not the image's: the store can then be opened, fenced and reconnected without
 * touching the data path, and a blocklisting by the store names exactly one client whose only job is this object.
 * Fencing a silent gateway blocklists its reservation client, so its watch breaks and its copy turns untrusted
 * (BUSY) as soon as it runs again, and it can no longer change the state; and its <i>image</i> client, whose address
 * each watch records beside its own ({@link #imageClient}), so that a write the hung gateway had already checked
 * before it stalled cannot reach the image either. The image client's address changes when the image is reopened
 * after a fence; {@link #refreshWatchers()} records the new one.
 *
 * <p><b>Fencing without {@code rados_list_watchers}</b> (16.2's C API has none): each watch records its client's
 * address, then the image client's when known (space-separated), in an xattr {@code
 * hostwide.pr.watcher.<gid>.<cookie>} of the object. A notify that times out names the
 * (gid, cookie) pairs that did not ack ({@code rados_decode_notify_response}); the notifier looks their addresses
 * up there, blocklists each ({@code rados_blocklist_add}), removes the entry and waits for the OSD map that has
 * the blocklist. A silent watcher whose address cannot be found is not fenced, and the notify fails with
 * {@link UnavailableException} (the writer answers BUSY) rather than claim it was.
 *
 * <p><b>Callbacks</b>: librados calls the watch and error callbacks (FFM upcalls) on its own threads. The watch
 * upcall only copies the payload and queues it on the watch's delivery thread, which runs
 * {@link Watcher#notified} and then {@code rados_notify_ack}: a watcher may block (a load, an abort) without
 * stalling librados' callback thread, and notifies of one watch stay in order. Nothing thrown escapes an upcall
 * (an exception there would kill the JVM): it is logged.
 *
 * <p><b>Fenced or shut down</b> ({@code -ESHUTDOWN}, which is also Ceph's {@code EBLOCKLISTED}): the client is
 * retired and the next call connects a new one (a new address, not blocklisted) and re-reads, as issue 16 asks of a
 * fenced gateway. Retired clients are shut down by {@link #close()} (a watch's delivery thread may still ack on
 * them until then).
 */
final class RadosReservationStore implements Rbd.SharedReservationStore {
    private static final Logger LOG = Logger.getLogger("io.hostwide.tcm.backstore.rbd");
    static final String VERSION_XATTR = "hostwide.pr.version";
    static final String WATCHER_XATTR = "hostwide.pr.watcher.";
    static final String OBJECT_PREFIX = "hostwide_pr.";
    /** Larger than SharedPrDocument.MAX_BYTES (4 MiB): one byte more tells an oversized object apart. */
    static final int MAX_BYTES = (4 << 20) + 1;
    private static final int VERSION_DIGITS = 20;
    private static final String DELIVERY_THREAD = "pr-watch-";

    /** Watches by the id their callback argument carries (an upcall has no other way back to Java state). */
    private static final Map<Long, RadosWatch> WATCHES = new ConcurrentHashMap<>();
    private static final AtomicLong NEXT_WATCH = new AtomicLong(1);
    private static final MemorySegment WATCH_CB;
    private static final MemorySegment ERROR_CB;

    static {
        if (LibRbd.MISSING == null) {
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                WATCH_CB = LibRados.watchCallback(l.findStatic(RadosReservationStore.class, "onNotify",
                        MethodType.methodType(void.class, MemorySegment.class, long.class, long.class, long.class,
                                MemorySegment.class, long.class)), Arena.global());
                ERROR_CB = LibRados.watchErrorCallback(l.findStatic(RadosReservationStore.class, "onWatchError",
                        MethodType.methodType(void.class, MemorySegment.class, long.class, int.class)), Arena.global());
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        } else {
            WATCH_CB = MemorySegment.NULL;
            ERROR_CB = MemorySegment.NULL;
        }
    }

    private final RbdConfig config;
    private final String objectName;
    private final Object clientLock = new Object();
    private RadosClient client;                                  // guarded by clientLock; null after close
    private final List<RadosClient> retired = new ArrayList<>(); // guarded by clientLock
    private volatile boolean closed;
    /** This gateway's image client's address (null: unknown, only the reservation client is recorded). */
    private volatile Supplier<String> imageClient = () -> null;

    private RadosReservationStore(RbdConfig config, RadosClient first, String objectName) {
        this.config = config;
        this.client = first;
        this.objectName = objectName;
    }

    /** Connects a client of {@code config}'s cluster and names the object after the image's id. */
    static Rbd.SharedReservationStore open(RbdConfig config) throws IOException {
        RadosClient c = RadosClient.connect(config);
        try {
            return new RadosReservationStore(config, c, OBJECT_PREFIX + c.imageId(config));
        } catch (IOException | RuntimeException | Error e) {
            c.shutdown();
            throw e;
        }
    }

    @Override
    public String objectName() { return objectName; }

    /** The current client's address, as the OSD blocklist names it (tests). */
    String address() throws UnavailableException { return client().address; }

    @Override
    public Versioned load() throws UnavailableException {
        RadosClient c = client();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment op = (MemorySegment) LibRados.call(LibRados.CREATE_READ_OP);
            MemorySegment buf = Native.malloc(MAX_BYTES);
            try {
                MemorySegment iter = arena.allocate(ADDRESS);
                MemorySegment xattrRet = arena.allocate(JAVA_INT);
                MemorySegment bytesRead = arena.allocate(JAVA_LONG);
                MemorySegment readRet = arena.allocate(JAVA_INT);
                LibRados.call(LibRados.READ_OP_GETXATTRS, op, iter, xattrRet);
                LibRados.call(LibRados.READ_OP_READ, op, 0L, (long) MAX_BYTES, buf, bytesRead, readRet);
                int r = LibRados.callInt(LibRados.READ_OP_OPERATE, op, c.ioctx, arena.allocateFrom(objectName), 0);
                if (r == -Errno.ENOENT) {
                    return new Versioned(0, new byte[0]);
                }
                check(c, r, "reading");
                check(c, readRet.get(JAVA_INT, 0), "reading");
                check(c, xattrRet.get(JAVA_INT, 0), "reading the xattrs of");
                Map<String, byte[]> xattrs = drain(iter.get(ADDRESS, 0));
                long n = bytesRead.get(JAVA_LONG, 0);
                if (n >= MAX_BYTES) {
                    throw new UnavailableException(objectName + " holds more than " + (MAX_BYTES - 1)
                            + " bytes: not a reservation state this version wrote");
                }
                byte[] v = xattrs.get(VERSION_XATTR);
                return new Versioned(v == null ? 0 : parseVersion(v), buf.asSlice(0, n).toArray(JAVA_BYTE));
            } finally {
                Native.free(buf);
                LibRados.call(LibRados.RELEASE_READ_OP, op);
            }
        }
    }

    @Override
    public long compareAndSet(long expected, byte[] bytes) throws UnavailableException {
        if (expected < 0) {
            throw new IllegalArgumentException("expected version " + expected + " is negative");
        }
        RadosClient c = client();
        if (expected == 0) {
            ensureObject(c);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment op = (MemorySegment) LibRados.call(LibRados.CREATE_WRITE_OP);
            try {
                MemorySegment name = arena.allocateFrom(VERSION_XATTR);
                MemorySegment data = arena.allocate(Math.max(1, bytes.length));
                MemorySegment.copy(bytes, 0, data, JAVA_BYTE, 0, bytes.length);
                LibRados.call(LibRados.WRITE_OP_CMPXATTR, op, name, LibRados.CMPXATTR_OP_EQ,
                        versionBytes(arena, expected), (long) VERSION_DIGITS);
                LibRados.call(LibRados.WRITE_OP_WRITE_FULL, op, data, (long) bytes.length);
                LibRados.call(LibRados.WRITE_OP_SETXATTR, op, name, versionBytes(arena, expected + 1),
                        (long) VERSION_DIGITS);
                int r = LibRados.callInt(LibRados.WRITE_OP_OPERATE, op, c.ioctx, arena.allocateFrom(objectName),
                        MemorySegment.NULL, 0);
                if (r == -Errno.ECANCELED || r == -Errno.EEXIST) {
                    return LOST;
                }
                check(c, r, "compare-and-set of");
                return expected + 1;
            } finally {
                LibRados.call(LibRados.RELEASE_WRITE_OP, op);
            }
        }
    }

    @Override
    public boolean notifyWatchers(byte[] payload, Duration timeout) throws UnavailableException {
        RadosClient c = client();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(Math.max(1, payload.length));
            MemorySegment.copy(payload, 0, data, JAVA_BYTE, 0, payload.length);
            MemorySegment reply = arena.allocate(ADDRESS);
            MemorySegment replyLen = arena.allocate(JAVA_LONG);
            int r = LibRados.callInt(LibRados.NOTIFY2, c.ioctx, arena.allocateFrom(objectName), data,
                    payload.length, Math.max(1, timeout.toMillis()), reply, replyLen);
            MemorySegment replyBuf = reply.get(ADDRESS, 0);
            try {
                if (r == 0) {
                    return true;
                }
                if (r != -Errno.ETIMEDOUT) {
                    check(c, r, "notify on");
                }
                if (replyBuf.equals(MemorySegment.NULL)) {
                    throw new UnavailableException("notify on " + objectName + " timed out without naming the"
                            + " silent watchers: they could not be fenced");
                }
                fence(c, silentWatchers(arena, replyBuf, replyLen.get(JAVA_LONG, 0)));
                return false;
            } finally {
                if (!replyBuf.equals(MemorySegment.NULL)) {
                    LibRados.call(LibRados.BUFFER_FREE, replyBuf);
                }
            }
        }
    }

    @Override
    public Watch watch(Watcher w) throws UnavailableException {
        RadosClient c = client();
        ensureObject(c);
        long id = NEXT_WATCH.getAndIncrement();
        RadosWatch watch = new RadosWatch(id, c, w);
        WATCHES.put(id, watch);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cookie = arena.allocate(JAVA_LONG);
            int r = LibRados.callInt(LibRados.WATCH3, c.ioctx, arena.allocateFrom(objectName), cookie, WATCH_CB,
                    ERROR_CB, config.opTimeoutSeconds(), MemorySegment.ofAddress(id));
            if (r < 0) {
                WATCHES.remove(id);
                watch.delivery.shutdown();
                check(c, r, "watching");
            }
            watch.cookie = cookie.get(JAVA_LONG, 0);
            try {
                record(watch);
            } catch (UnavailableException e) {
                watch.close();
                throw e;
            }
            return watch;
        }
    }

    /** The addresses a notifier that times out on {@code watch} blocklists (see the class comment). */
    private void record(RadosWatch watch) throws UnavailableException {
        RadosClient c = watch.client;
        String image = imageClient.get();
        byte[] addr = (image == null ? c.address : c.address + " " + image).getBytes(StandardCharsets.US_ASCII);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(addr.length);
            MemorySegment.copy(addr, 0, value, JAVA_BYTE, 0, addr.length);
            int r = LibRados.callInt(LibRados.SETXATTR, c.ioctx, arena.allocateFrom(objectName),
                    arena.allocateFrom(watch.xattr()), value, (long) addr.length);
            check(c, r, "recording the watcher address on");
        }
    }

    @Override
    public void imageClient(Supplier<String> address) {
        this.imageClient = address;
    }

    @Override
    public void refreshWatchers() {
        for (RadosWatch w : WATCHES.values()) {
            if (w.store() != this || w.closing || w.broken) {
                continue;
            }
            try {
                record(w);
            } catch (UnavailableException e) {
                LOG.warning(() -> objectName + ": cannot record the new image client address beside watch "
                        + w.xattr() + ": " + e.getMessage() + " (a notifier fencing this gateway would miss it)");
            }
        }
    }

    @Override
    public void close() {
        List<RadosClient> all = new ArrayList<>();
        synchronized (clientLock) {
            if (closed) {
                return;
            }
            closed = true;
            if (client != null) {
                all.add(client);
            }
            all.addAll(retired);
            client = null;
            retired.clear();
        }
        for (RadosWatch w : WATCHES.values()) {
            if (all.contains(w.client)) {
                w.close();
            }
        }
        all.forEach(RadosClient::shutdown);
    }

    @Override
    public String toString() { return "RadosReservationStore(" + config.pool() + "/" + objectName + ")"; }

    /** The live client, connecting a new one when the last was fenced. */
    private RadosClient client() throws UnavailableException {
        synchronized (clientLock) {
            if (closed) {
                throw new UnavailableException(this + " is closed");
            }
            if (client.fenced) {
                try {
                    RadosClient fresh = RadosClient.connect(config);
                    retired.add(client);
                    LOG.info(() -> objectName + ": reservation client " + client.gid + " was fenced; reconnected as "
                            + fresh.gid);
                    client = fresh;
                } catch (IOException e) {
                    throw new UnavailableException("reconnecting to the reservation store " + objectName + ": "
                            + e.getMessage(), e);
                }
            }
            return client;
        }
    }

    /** Creates the object with version 0 unless it exists: a watch needs an object, and so does cmpxattr. */
    private void ensureObject(RadosClient c) throws UnavailableException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment op = (MemorySegment) LibRados.call(LibRados.CREATE_WRITE_OP);
            try {
                LibRados.call(LibRados.WRITE_OP_CREATE, op, LibRados.CREATE_EXCLUSIVE, MemorySegment.NULL);
                LibRados.call(LibRados.WRITE_OP_SETXATTR, op, arena.allocateFrom(VERSION_XATTR),
                        versionBytes(arena, 0), (long) VERSION_DIGITS);
                int r = LibRados.callInt(LibRados.WRITE_OP_OPERATE, op, c.ioctx, arena.allocateFrom(objectName),
                        MemorySegment.NULL, 0);
                if (r != -Errno.EEXIST) {
                    check(c, r, "creating");
                }
            } finally {
                LibRados.call(LibRados.RELEASE_WRITE_OP, op);
            }
        }
    }

    /** The (gid, cookie) pairs a timed-out notify's reply names as not having acked. */
    private List<long[]> silentWatchers(Arena arena, MemorySegment reply, long len) throws UnavailableException {
        MemorySegment acks = arena.allocate(ADDRESS);
        MemorySegment nAcks = arena.allocate(JAVA_LONG);
        MemorySegment timeouts = arena.allocate(ADDRESS);
        MemorySegment nTimeouts = arena.allocate(JAVA_LONG);
        int r = LibRados.callInt(LibRados.DECODE_NOTIFY_RESPONSE, reply, len, acks, nAcks, timeouts, nTimeouts);
        if (r < 0) {
            throw new UnavailableException("notify reply on " + objectName + " undecodable: " + Errno.name(r));
        }
        long n = nTimeouts.get(JAVA_LONG, 0);
        MemorySegment t = timeouts.get(ADDRESS, 0).reinterpret(n * LibRados.NOTIFY_TIMEOUT_SIZE);
        List<long[]> silent = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            silent.add(new long[] {t.get(JAVA_LONG, i * 16L), t.get(JAVA_LONG, i * 16L + 8)});
        }
        LibRados.call(LibRados.FREE_NOTIFY_RESPONSE, acks.get(ADDRESS, 0), nAcks.get(JAVA_LONG, 0),
                timeouts.get(ADDRESS, 0));
        return silent;
    }

    /**
     * Blocklists each silent watcher by the addresses its watch recorded; this client's own are skipped. All the
     * addresses (a silent gateway's reservation and image clients, and every other silent gateway's) are sent to
     * the monitor at once, one call per thread ({@link #blocklistAll}), not one after another: each {@code
     * rados_blocklist_add} returns only once the monitor has committed an OSD map with the entry, and serially that
     * was one map epoch per address (about 1 s each on a loaded machine) before a takeover could go on. Fencing is
     * unchanged: every address is in a committed map before the entries are removed, and this client waits for the
     * latest map before it returns.
     */
    private void fence(RadosClient c, List<long[]> silent) throws UnavailableException {
        Map<String, byte[]> xattrs = null;
        Map<String, String[]> byKey = new LinkedHashMap<>();
        List<String> all = new ArrayList<>();
        for (long[] gc : silent) {
            if (gc[0] == c.gid) {
                continue; // our own watch: this client is not blocklisted by itself
            }
            if (xattrs == null) {
                xattrs = xattrs(c);
            }
            String key = WATCHER_XATTR + Long.toUnsignedString(gc[0]) + "." + Long.toUnsignedString(gc[1]);
            byte[] addr = xattrs.get(key);
            if (addr == null) {
                throw new UnavailableException("watcher client." + Long.toUnsignedString(gc[0]) + " of " + objectName
                        + " did not acknowledge and recorded no address: it could not be fenced");
            }
            String[] addresses = new String(addr, StandardCharsets.US_ASCII).trim().split(" +");
            byKey.put(key, addresses);
            for (String a : addresses) { // its reservation client, then its image client
                if (!all.contains(a)) {
                    all.add(a);
                }
            }
        }
        if (xattrs == null) {
            return;
        }
        blocklistAll(c, all);
        try (Arena arena = Arena.ofConfined()) {
            for (Map.Entry<String, String[]> e : byKey.entrySet()) {
                String[] addresses = e.getValue();
                LOG.warning(() -> objectName + ": watcher client." + e.getKey().substring(WATCHER_XATTR.length())
                        + " did not acknowledge a reservation change: blocklisted " + String.join(" and ", addresses)
                        + (addresses.length > 1 ? " (its reservation and image clients)" : ""));
                LibRados.callInt(LibRados.RMXATTR, c.ioctx, arena.allocateFrom(objectName),
                        arena.allocateFrom(e.getKey()));
            }
        }
        // our next op then carries the epoch with the blocklist: the OSDs refuse the fenced client from here on
        check(c, LibRados.callInt(LibRados.WAIT_FOR_LATEST_OSDMAP, c.cluster), "waiting for the OSD map of");
    }

    /**
     * {@code rados_blocklist_add} of every address, each on its own thread (librados is thread-safe and the monitor
     * may commit them in one epoch), waiting for all; fails, naming the first failed address, unless every one
     * succeeded. The first address is done on the calling thread.
     */
    private void blocklistAll(RadosClient c, List<String> addresses) throws UnavailableException {
        long[] results = new long[addresses.size()];
        java.util.Arrays.fill(results, -Errno.EIO); // a thread that threw never counts as a success
        List<Thread> threads = new ArrayList<>();
        for (int i = 1; i < addresses.size(); i++) {
            int at = i;
            threads.add(Thread.ofPlatform().name("pr-blocklist-" + i).daemon().start(() ->
                    results[at] = blocklist(c, addresses.get(at))));
        }
        if (!addresses.isEmpty()) {
            results[0] = blocklist(c, addresses.get(0));
        }
        boolean interrupted = false;
        for (Thread t : threads) {
            while (true) {
                try {
                    t.join(); // a blocklist call has no timeout of its own but rados_mon_op_timeout's
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // the calls are under way in librados: wait for their answer anyway
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        for (int i = 0; i < results.length; i++) { // join() orders the threads' writes before these reads
            check(c, results[i], "blocklisting silent watcher " + addresses.get(i) + " of");
        }
    }

    private static long blocklist(RadosClient c, String address) {
        try (Arena arena = Arena.ofConfined()) {
            return LibRados.callInt(LibRados.BLOCKLIST_ADD, c.cluster, arena.allocateFrom(address), 0);
        } catch (RuntimeException e) { // on a helper thread: reported as a failure of this address, not lost
            LOG.warning(() -> "rados_blocklist_add " + address + ": " + e);
            return -Errno.EIO;
        }
    }

    /** Every xattr of the object (version and watcher addresses). */
    private Map<String, byte[]> xattrs(RadosClient c) throws UnavailableException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment op = (MemorySegment) LibRados.call(LibRados.CREATE_READ_OP);
            try {
                MemorySegment iter = arena.allocate(ADDRESS);
                MemorySegment ret = arena.allocate(JAVA_INT);
                LibRados.call(LibRados.READ_OP_GETXATTRS, op, iter, ret);
                int r = LibRados.callInt(LibRados.READ_OP_OPERATE, op, c.ioctx, arena.allocateFrom(objectName), 0);
                check(c, r, "reading the xattrs of");
                check(c, ret.get(JAVA_INT, 0), "reading the xattrs of");
                return drain(iter.get(ADDRESS, 0));
            } finally {
                LibRados.call(LibRados.RELEASE_READ_OP, op);
            }
        }
    }

    @SuppressWarnings("restricted") // reinterpret of librados-owned xattr names and values
    private static Map<String, byte[]> drain(MemorySegment iter) {
        Map<String, byte[]> out = new HashMap<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment name = arena.allocate(ADDRESS);
            MemorySegment val = arena.allocate(ADDRESS);
            MemorySegment len = arena.allocate(JAVA_LONG);
            while (LibRados.callInt(LibRados.GETXATTRS_NEXT, iter, name, val, len) == 0) {
                MemorySegment n = name.get(ADDRESS, 0);
                if (n.equals(MemorySegment.NULL)) {
                    break; // end of the list
                }
                long l = len.get(JAVA_LONG, 0);
                out.put(n.reinterpret(Integer.MAX_VALUE).getString(0),
                        val.get(ADDRESS, 0).reinterpret(l).toArray(JAVA_BYTE));
            }
        } finally {
            LibRados.call(LibRados.GETXATTRS_END, iter);
        }
        return out;
    }

    private void check(RadosClient c, long r, String what) throws UnavailableException {
        if (r >= 0) {
            return;
        }
        if (r == -Errno.ESHUTDOWN) {
            c.fenced = true; // blocklisted: the next call connects a new client
        }
        throw new UnavailableException(what + " " + config.pool() + "/" + objectName + " failed: " + Errno.name(r));
    }

    private static MemorySegment versionBytes(Arena arena, long version) {
        String s = String.format("%0" + VERSION_DIGITS + "d", version);
        MemorySegment m = arena.allocate(VERSION_DIGITS);
        MemorySegment.copy(s.getBytes(StandardCharsets.US_ASCII), 0, m, JAVA_BYTE, 0, VERSION_DIGITS);
        return m;
    }

    private long parseVersion(byte[] v) throws UnavailableException {
        String s = new String(v, StandardCharsets.US_ASCII);
        if (s.length() != VERSION_DIGITS || !s.chars().allMatch(Character::isDigit)) {
            throw new UnavailableException(objectName + "'s " + VERSION_XATTR + " is '" + s
                    + "', not a " + VERSION_DIGITS + "-digit version");
        }
        return Long.parseLong(s);
    }

    /** rados_watchcb2_t upcall: queue the payload on the watch's delivery thread; never throws. */
    private static void onNotify(MemorySegment arg, long notifyId, long handle, long notifierId, MemorySegment data,
                                 long len) {
        try {
            RadosWatch w = WATCHES.get(arg.address());
            if (w == null) {
                return; // closed meanwhile: the notifier times out on it, as on any gone watcher
            }
            byte[] payload = len == 0 ? new byte[0] : data.reinterpret(len).toArray(JAVA_BYTE);
            w.delivery.execute(() -> w.deliver(notifyId, payload));
        } catch (RejectedExecutionException e) {
            // the watch is closing
        } catch (Throwable t) {
            LOG.log(Level.SEVERE, "reservation watch callback failed", t);
        }
    }

    /** rados_watcherrcb_t upcall: the watch broke; never throws. */
    private static void onWatchError(MemorySegment arg, long cookie, int err) {
        try {
            RadosWatch w = WATCHES.get(arg.address());
            if (w != null) {
                w.broke(err);
            }
        } catch (Throwable t) {
            LOG.log(Level.SEVERE, "reservation watch error callback failed", t);
        }
    }

    /** One rados_watch3 on the object, with its delivery thread. */
    private final class RadosWatch implements Watch {
        final long id;
        final RadosClient client;
        final Watcher watcher;
        final ExecutorService delivery;
        volatile long cookie;
        volatile boolean broken;
        volatile boolean closing;

        RadosWatch(long id, RadosClient client, Watcher watcher) {
            this.id = id;
            this.client = client;
            this.watcher = watcher;
            this.delivery = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, DELIVERY_THREAD + objectName);
                t.setDaemon(true);
                return t;
            });
        }

        RadosReservationStore store() { return RadosReservationStore.this; }

        String xattr() { return WATCHER_XATTR + Long.toUnsignedString(client.gid) + "." + Long.toUnsignedString(cookie); }

        /** Delivery thread: the watcher installs the change, then the ack tells the notifier. */
        void deliver(long notifyId, byte[] payload) {
            try {
                watcher.notified(payload);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, objectName + ": reservation watcher failed on a notify", e);
            }
            if (closing) {
                return;
            }
            try (Arena arena = Arena.ofConfined()) {
                int r = LibRados.callInt(LibRados.NOTIFY_ACK, client.ioctx, arena.allocateFrom(objectName), notifyId,
                        cookie, MemorySegment.NULL, 0);
                if (r < 0) {
                    LOG.warning(() -> objectName + ": notify ack failed: " + Errno.name(r));
                }
            }
        }

        void broke(int err) {
            if (err == -Errno.ESHUTDOWN) {
                client.fenced = true;
            }
            if (broken || closing) {
                return;
            }
            broken = true;
            watcher.broken(new UnavailableException("watch on " + objectName + " broke: " + Errno.name(err)));
        }

        @Override
        public boolean healthy() {
            if (broken || closing) {
                return false;
            }
            return LibRados.callInt(LibRados.WATCH_CHECK, client.ioctx, cookie) >= 0;
        }

        @Override
        public void close() {
            if (closing) {
                return;
            }
            closing = true;
            try (Arena arena = Arena.ofConfined()) {
                if (!client.fenced) {
                    LibRados.callInt(LibRados.UNWATCH2, client.ioctx, cookie);
                    LibRados.callInt(LibRados.RMXATTR, client.ioctx, arena.allocateFrom(objectName),
                            arena.allocateFrom(xattr()));
                }
            } finally {
                WATCHES.remove(id);
                delivery.shutdown();
            }
            // a delivery still running may ack on this client: let it finish before the store shuts the client
            // down (bounded: a stalled watcher is not waited for forever; never from the delivery thread itself)
            if (!Thread.currentThread().getName().startsWith(DELIVERY_THREAD)) {
                try {
                    delivery.awaitTermination(2, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
