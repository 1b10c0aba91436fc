package io.hostwide.tcm.backstore.rbd;

import io.hostwide.tcm.spi.AsyncBackstore;
import io.hostwide.tcm.spi.BackstoreStatusException;
import io.hostwide.tcm.spi.CompletionBatch;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.SharedOwnership;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One open RBD image as a backstore (tcmu-runner's rbd handler, SPDK's bdev_rbd): librados/librbd through FFM,
 * every data operation asynchronous with completions through an eventfd, except compare_and_write (see there).
 *
 * <p>Completion path: the image is bound to an eventfd ({@code rbd_set_image_notification}); librbd's threads
 * queue each finished completion and bump the eventfd, never calling into Java. One poller thread per image
 * blocks in {@code read(2)} on the eventfd, drains the completions with {@code rbd_poll_io_events} and ends each
 * operation there: chains the flush of a FUA write, and calls the submitter's {@link AsyncBackstore.Done}. So QD
 * commands are in flight with two threads in all (the submitter and the poller).
 *
 * <p>Memory: each operation in flight owns an {@link Op} slot (queueDepth of them, preallocated; no slot free =
 * TASK SET FULL). A read into a direct buffer (the core's Data-In buffers are) has librbd fill that buffer in place,
 * so the Data-In PDU is sent from the very bytes librbd wrote (no memcpy per byte read on the poller, which also
 * sends the responses); if the watchdog answers such a read before librbd is done with it,
 * the answer says so ({@link BackstoreStatusException#dstRetained()}: the command retires the buffer) and the slot
 * keeps the buffer referenced until librbd lets go of it. A write's direct Data-Out buffer goes to librbd as it is
 * (librbd copies it before the call returns). Otherwise (heap buffers) the slot's own native buffer, malloc'd, holds
 * the data; a slot keeps buffers up to 1 MiB for reuse and frees larger ones at completion: at most
 * queueDepth × 1 MiB stays allocated. The completion's argument is the slot index + 1, not a pointer.
 *
 * <p>Close racing I/O: {@link #close()} refuses new operations, waits for those in flight to complete (librados'
 * op timeout bounds this when the cluster is gone), then stops the poller and closes the image. Buffers of an
 * operation that never completed are leaked rather than freed under librbd's feet.
 *
 * <p>Resize from outside: {@code rbd_update_watch}'s callback (a librbd thread, through an upcall stub) only sets a
 * flag and bumps the eventfd; the poller re-reads the size (librbd must not be re-entered from its own callback)
 * and tells the device, which raises CAPACITY DATA HAS CHANGED.
 *
 * <p>Fenced (ESHUTDOWN: blocklisted; EROFS: exclusive lock lost): as tcmu-runner, the command and every one after
 * it get BUSY while the poller, once the fenced client has nothing in flight, replaces the client, pool context and
 * image with new ones ({@link RbdClient}); see the "fenced" region. GET LBA STATUS: {@link RbdAllocation}.
 */
final class RbdImage implements AsyncBackstore, SharedOwnership.Source {
    private static final Logger LOG = Logger.getLogger("io.hostwide.tcm.backstore.rbd");
    private static final int POLL_BATCH = 64;
    private static final long RETAIN_BYTES = 1 << 20;
    private static final int CAW_SECTOR = 512;

    private static final int READ = 0;
    private static final int WRITE = 1;
    private static final int WRITE_THEN_FLUSH = 2;
    private static final int FLUSH = 3;
    private static final int DISCARD = 4;
    private static final int WRITE_SAME = 5;
    private static final String[] KIND = {"read", "write", "write (FUA)", "flush", "discard", "writesame"};

    /** Images with an update watch, by the id their callback argument carries. */
    private static final Map<Long, RbdImage> WATCHED = new ConcurrentHashMap<>();
    private static final AtomicLong NEXT_ID = new AtomicLong(1);
    /**
     * Slots left with librbd for good (abandoned with a fenced client, or in flight when close gave up waiting): a
     * read's Java buffer that librbd may still fill must stay reachable, or the collector would free its memory
     * under librbd. Only grows on those rare events, by at most one queue depth each.
     */
    private static final List<Op> LEFT_WITH_LIBRBD = new CopyOnWriteArrayList<>();
    private static final MemorySegment UPDATE_CALLBACK = updateCallback();
    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "rbd-watchdog");
        t.setDaemon(true);
        return t;
    });

    private final RbdConfig config;
    private final int blockSize;
    private final long id = NEXT_ID.getAndIncrement();
    /** The client, pool context and image; replaced by {@link #reopen} (on the poller) after a fence. */
    private volatile MemorySegment cluster;
    private volatile MemorySegment ioctx;
    private volatile MemorySegment image;
    private final int eventFd;
    private final long features;
    private final Op[] ops;
    private final ArrayBlockingQueue<Op> free;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicBoolean updatePending = new AtomicBoolean();
    private final Thread poller;
    private final MemorySegment zeroBlock;
    private volatile long sizeBytes;
    /** librbd's cache is on (rbd_cache; off by default, see RbdClient): FUA then needs a flush after the write. */
    private volatile boolean cached;
    private volatile boolean closed;
    private volatile boolean stopping;
    private volatile Runnable capacityListener;
    private long watchHandle = -1;
    private final long watchdogNanos;
    private final ScheduledFuture<?> watchdog;

    /** One operation's state, reused: owned by the submitter until the librbd call, then by the poller. */
    private static final class Op {
        final int index;
        /** [0] the rbd_completion_t out-parameter, [8] compare_and_write's mismatch offset. */
        final MemorySegment scratch;
        MemorySegment buffer = MemorySegment.NULL;
        MemorySegment oneShot = MemorySegment.NULL;
        /**
         * A write's data in the caller's own direct buffer, handed to librbd as it is: librbd copies it before
         * rbd_aio_write2 returns (rbd_disable_zero_copy_writes, forced on in open), so it is only valid, and only
         * set, during that call. NULL otherwise.
         */
        MemorySegment source = MemorySegment.NULL;
        /**
         * A read's destination in the caller's own direct buffer ({@link #dst}), which librbd fills in place: set
         * from submission until the slot is released (librbd is done with it then), NULL otherwise.
         */
        MemorySegment sink = MemorySegment.NULL;
        int kind;
        long offset;
        long length;
        ByteBuffer dst;
        AsyncBackstore.Done done;
        /** When the watchdog answers BUSY for it (System.nanoTime), written before {@link #state} publishes it. */
        long deadline;
        /** {@link LendEpoch#now} when it started, written before {@link #state} publishes it. */
        long lendEpoch;
        /**
         * generation &lt;&lt; 1 | answered: the submitter answer is given once, by the completion or by the watchdog,
         * whichever flips the bit first for this generation (a reused slot has a new one, so a late watchdog never
         * answers the next command). Free slots have the bit set.
         */
        final AtomicLong state = new AtomicLong(1);
        /**
         * Left with a fenced client that never ended it ({@link RbdImage#abandonStuck}): its slot was replaced, and its
         * buffers stay librbd's for good. Written by the poller, read by whoever releases the slot.
         */
        volatile boolean abandoned;

        Op(int index, MemorySegment scratch) {
            this.index = index;
            this.scratch = scratch;
        }
    }

    static String missingLibrary() { return LibRbd.MISSING; }

    /** Connects, opens the image, binds the eventfd and starts the poller; called reflectively by {@link Rbd}. */
    static AsyncBackstore open(RbdConfig config, int blockSize) throws IOException {
        RbdClient c = RbdClient.open(config, null);
        try {
            int efd = Native.eventfd();
            int n = Native.i(LibRbd.RBD_SET_IMAGE_NOTIFICATION, c.image(), efd, LibRbd.EVENT_TYPE_EVENTFD);
            if (n < 0) {
                Native.close(efd);
                check(n, "rbd_set_image_notification " + config.spec());
            }
            RbdImage img = new RbdImage(config, blockSize, c.cluster(), c.ioctx(), c.image(), efd, c.size(),
                    c.features());
            img.cached = RbdClient.cacheEnabled(c.cluster());
            img.watch();
            return img;
        } catch (IOException | RuntimeException | Error e) {
            c.close();
            throw e;
        }
    }

    private RbdImage(RbdConfig config, int blockSize, MemorySegment cluster, MemorySegment ioctx,
                     MemorySegment image, int eventFd, long sizeBytes, long features) {
        this.config = config;
        this.blockSize = blockSize;
        this.cluster = cluster;
        this.ioctx = ioctx;
        this.image = image;
        this.eventFd = eventFd;
        this.sizeBytes = sizeBytes;
        this.features = features;
        int depth = config.queueDepth();
        this.ops = new Op[depth];
        this.free = new ArrayBlockingQueue<>(depth);
        MemorySegment scratch = Native.malloc(16L * depth);
        for (int i = 0; i < depth; i++) {
            ops[i] = new Op(i, scratch.asSlice(16L * i, 16));
            free.add(ops[i]);
        }
        this.zeroBlock = Native.malloc(blockSize).fill((byte) 0);
        // librados' op timeout ends what reaches an OSD; not what waits before it (the exclusive lock, a monitor
        // that is gone): twice the timeout later the watchdog answers BUSY itself, and the slot waits for librbd
        this.watchdogNanos = TimeUnit.SECONDS.toNanos(2L * config.opTimeoutSeconds());
        this.watchdog = config.opTimeoutSeconds() == 0 ? null
                : WATCHDOG.scheduleWithFixedDelay(this::expire, 1, 1, TimeUnit.SECONDS);
        this.poller = new Thread(this::poll, "rbd-poll-" + config.spec());
        poller.setDaemon(true);
        poller.start();
    }

    private void watch() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment handle = arena.allocate(JAVA_LONG);
            WATCHED.put(id, this);
            int r = Native.i(LibRbd.RBD_UPDATE_WATCH, image, handle, UPDATE_CALLBACK, MemorySegment.ofAddress(id));
            if (r < 0) { // capacity changes from outside then go unseen until reopened; everything else works
                WATCHED.remove(id);
                LOG.warning(config.spec() + ": rbd_update_watch failed (" + Errno.name(r)
                        + "): a resize by another client will not raise CAPACITY DATA HAS CHANGED");
                return;
            }
            watchHandle = handle.get(JAVA_LONG, 0);
        }
    }

    // ---- Backstore facts

    @Override
    public int blockSize() { return blockSize; }

    @Override
    public long blockCount() { return sizeBytes / blockSize; }

    /** True: the blocking methods wait for librbd, so they run on the device's I/O queue. */
    @Override
    public boolean blocking() { return true; }

    @Override
    public boolean supportsUnmap() { return true; }

    /** rbd_skip_partial_discard is off (see open), so every discarded byte reads back as zero. */
    @Override
    public boolean unmapReturnsZeros() { return true; }

    /** From rbd_diff_iterate2: see {@link RbdAllocation}. */
    @Override
    public long provisioningRun(long lba, long maxBlocks) throws IOException {
        enter();
        try {
            return RbdAllocation.run(image, config.spec(), blockSize, blockCount(), features, lba, maxBlocks,
                    r -> noteFenced(r, "diff_iterate2"));
        } finally {
            leave();
        }
    }

    /**
     * 16.2's compare_and_write takes one 512-byte sector and answers EINVAL for more (probed on Debian 12's
     * 16.2.15); longer ones are left to the core's emulation under its range lock.
     */
    @Override
    public boolean nativeCompareAndWrite(int bytes) { return bytes == CAW_SECTOR; }

    @Override
    public void onCapacityChange(Runnable listener) { this.capacityListener = listener; }

    /** RBD_FEATURE_EXCLUSIVE_LOCK (librbd/features.h). */
    private static final long FEATURE_EXCLUSIVE_LOCK = 1L << 2;

    /**
     * The image's exclusive lock as the ownership of several gateways ({@link ImageLock}); null without the
     * exclusive-lock feature, or when the image id cannot be read.
     */
    @Override
    public SharedOwnership sharedOwnership() {
        if ((features & FEATURE_EXCLUSIVE_LOCK) == 0) {
            return null;
        }
        try {
            return new GuardedOwnership(new ImageLock(() -> image, () -> cluster, clientListeners::add, config.pool(),
                    config.spec(), lockLent), handles.readLock());
        } catch (IOException e) {
            LOG.warning(config.spec() + ": cannot share between gateways: " + e.getMessage());
            return null;
        }
    }

    @Override
    public String describe() {
        return "rbd " + config.spec() + (config.conf() == null ? "" : " (" + config.conf() + ")")
                + ", features 0x" + Long.toHexString(features) + ", queue depth " + ops.length
                + (cached ? ", librbd cache on" : "");
    }

    // ---- asynchronous submission

    @Override
    public boolean submitRead(long lba, ByteBuffer dst, Done done) {
        Op op = free.poll();
        return op != null && startRead(op, lba, dst, done);
    }

    @Override
    public boolean submitWrite(long lba, ByteBuffer src, boolean fua, Done done) {
        Op op = free.poll();
        return op != null && startWrite(op, lba, src, fua, done);
    }

    @Override
    public boolean submitFlush(Done done) {
        Op op = free.poll();
        return op != null && start(op, FLUSH, 0, 0, done);
    }

    private boolean startRead(Op op, long lba, ByteBuffer dst, Done done) {
        op.dst = dst;
        if (dst.isDirect()) {
            op.sink = MemorySegment.ofBuffer(dst); // position..limit: librbd reads straight into it
        } else {
            buffer(op, dst.remaining());
        }
        return start(op, READ, lba * blockSize, dst.remaining(), done);
    }

    private boolean startWrite(Op op, long lba, ByteBuffer src, boolean fua, Done done) {
        int len = src.remaining();
        if (src.isDirect()) {
            op.source = MemorySegment.ofBuffer(src); // no copy of ours: librbd's own copy is the only one
        } else {
            MemorySegment.copy(MemorySegment.ofBuffer(src), 0, buffer(op, len), 0, len);
        }
        src.position(src.limit());
        // without librbd's cache a write completes once the OSDs have it durably: FUA needs nothing more
        return start(op, fua && cached ? WRITE_THEN_FLUSH : WRITE, lba * blockSize, len, done);
    }

    /**
     * Issues {@code op}; true in any case where {@code done} will be (or was) called, false only when the image is
     * closed. A librbd call that fails at once completes the operation with its error right here.
     */
    private boolean start(Op op, int kind, long offset, long length, Done done) {
        inFlight.incrementAndGet(); // before reading closed: close() sees either this count or we see closed
        if (closed) {
            release(op);
            return false;
        }
        if (fenced != null) { // reopening with a new client: the initiator retries
            release(op);
            done.done(busyWhileFenced());
            return true;
        }
        op.kind = kind;
        op.offset = offset;
        op.length = length;
        op.done = done;
        op.deadline = System.nanoTime() + watchdogNanos;
        op.lendEpoch = lockLent.now();
        op.state.set((op.state.get() >>> 1) + 1 << 1); // a new generation, unanswered; publishes the fields above
        int r = Native.i(LibRbd.RBD_AIO_CREATE_COMPLETION, MemorySegment.ofAddress(op.index + 1L),
                MemorySegment.NULL, op.scratch);
        if (r < 0) {
            finish(op, r);
            return true;
        }
        MemorySegment c = op.scratch.get(ADDRESS, 0);
        long ret = issue(op, c);
        op.source = MemorySegment.NULL; // librbd has its copy of a borrowed write source now
        if (ret < 0) {
            Native.v(LibRbd.RBD_AIO_RELEASE, c);
            finish(op, ret);
        }
        return true;
    }

    private long issue(Op op, MemorySegment c) {
        return switch (op.kind) {
            case READ -> Native.i(LibRbd.RBD_AIO_READ, image, op.offset, op.length,
                    op.sink.equals(MemorySegment.NULL) ? data(op) : op.sink, c);
            case WRITE, WRITE_THEN_FLUSH -> Native.i(LibRbd.RBD_AIO_WRITE2, image, op.offset, op.length,
                    op.source.equals(MemorySegment.NULL) ? data(op) : op.source, c, 0);
            case FLUSH -> Native.i(LibRbd.RBD_AIO_FLUSH, image, c);
            case DISCARD -> Native.i(LibRbd.RBD_AIO_DISCARD, image, op.offset, op.length, c);
            case WRITE_SAME -> Native.i(LibRbd.RBD_AIO_WRITESAME, image, op.offset, op.length, data(op),
                    (long) blockSize, c, 0);
            default -> throw new IllegalStateException("kind " + op.kind);
        };
    }

    private static MemorySegment data(Op op) {
        return op.oneShot.equals(MemorySegment.NULL) ? op.buffer : op.oneShot;
    }

    /** The native buffer of {@code op} with room for {@code len} bytes. */
    private static MemorySegment buffer(Op op, long len) {
        if (len > RETAIN_BYTES) {
            op.oneShot = Native.malloc(len);
            return op.oneShot;
        }
        if (op.buffer.byteSize() < len) {
            Native.free(op.buffer);
            op.buffer = MemorySegment.NULL;
            op.buffer = Native.malloc(Math.max(len, 64 * 1024));
        }
        return op.buffer;
    }

    // ---- completion (poller thread, or the submitter when librbd refused the call)

    private void poll() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment counter = arena.allocate(JAVA_LONG);
            MemorySegment state = LibRbd.newCallState(arena);
            MemorySegment comps = arena.allocate(ADDRESS, POLL_BATCH);
            while (true) {
                long r = Native.read(state, eventFd, counter);
                if (r < 0 && LibRbd.errno(state) != 4 /* EINTR */) {
                    LOG.severe(config.spec() + ": read(eventfd) failed, errno " + LibRbd.errno(state)
                            + "; RBD completions stop");
                    return;
                }
                boolean open = !image.equals(MemorySegment.NULL); // else fenced, between reopen attempts
                if (open) {
                    drain(comps);
                }
                if (open && updatePending.getAndSet(false)) {
                    refreshSize();
                }
                if (fenced != null) {
                    reopenWhenIdle();
                }
                if (stopping && inFlight.get() == 0) {
                    return;
                }
            }
        } catch (RuntimeException | Error e) {
            LOG.log(Level.SEVERE, config.spec() + ": the RBD poller failed; completions stop", e);
        }
    }

    /**
     * Ends the completions librbd has queued. Inside one {@link CompletionBatch}: the fabrics send the responses of
     * all the commands ended here with one write per connection when the drain is done, instead of one each.
     */
    private void drain(MemorySegment comps) {
        try (CompletionBatch batch = CompletionBatch.open()) {
            drainBatch(comps);
        }
    }

    private void drainBatch(MemorySegment comps) {
        int n;
        do {
            n = Native.i(LibRbd.RBD_POLL_IO_EVENTS, image, comps, POLL_BATCH);
            for (int i = 0; i < n; i++) {
                MemorySegment c = comps.getAtIndex(ADDRESS, i);
                long arg = Native.a(LibRbd.RBD_AIO_GET_ARG, c).address();
                long ret = Native.l(LibRbd.RBD_AIO_GET_RETURN_VALUE, c);
                Native.v(LibRbd.RBD_AIO_RELEASE, c);
                complete(ops[(int) (arg - 1)], ret);
            }
        } while (n == POLL_BATCH);
    }

    private void complete(Op op, long ret) {
        if (ret >= 0 && op.kind == WRITE_THEN_FLUSH && (op.state.get() & 1) == 0) {
            // FUA with rbd_cache on: librbd acknowledged the write from its cache; the flush makes it durable
            op.kind = FLUSH;
            MemorySegment scratch = op.scratch;
            int r = Native.i(LibRbd.RBD_AIO_CREATE_COMPLETION, MemorySegment.ofAddress(op.index + 1L),
                    MemorySegment.NULL, scratch);
            long f = r < 0 ? r : Native.i(LibRbd.RBD_AIO_FLUSH, image, scratch.get(ADDRESS, 0));
            if (f >= 0) {
                return;
            }
            if (r >= 0) {
                Native.v(LibRbd.RBD_AIO_RELEASE, scratch.get(ADDRESS, 0));
            }
            ret = f;
        }
        long s = op.state.get();
        if ((s & 1) != 0 || !op.state.compareAndSet(s, s | 1)) {
            release(op); // the watchdog answered BUSY; the buffer was librbd's until now
            return;
        }
        if (ret >= 0 && op.kind == READ) {
            ByteBuffer dst = op.dst;
            int len = (int) op.length;
            if (op.sink.equals(MemorySegment.NULL)) {
                MemorySegment.copy(data(op), 0, MemorySegment.ofBuffer(dst), 0, len);
            }
            dst.position(dst.position() + len);
        }
        answer(op, ret);
    }

    /** Ends {@code op} that never reached librbd (or failed at once), answering the submitter. */
    private void finish(Op op, long ret) {
        long s = op.state.get();
        op.state.set(s | 1);
        answer(op, ret);
    }

    /** The watchdog: answers BUSY for operations librbd has held past their deadline. */
    private void expire() {
        long now = System.nanoTime();
        for (Op op : ops) {
            long s = op.state.get();
            if ((s & 1) != 0 || now - op.deadline < 0) {
                continue;
            }
            Done done = op.done;
            String what = "rbd " + KIND[op.kind] + " " + config.spec() + " at byte " + op.offset;
            // read this generation's sink before the CAS: after it the submitter's next command may reuse the slot
            boolean inPlace = !op.sink.equals(MemorySegment.NULL);
            if (done != null && op.state.compareAndSet(s, s | 1)) {
                // librbd may still fill a read's buffer in place: the command must retire it (the slot keeps it)
                done.done(new BackstoreStatusException(SenseReason.BUSY, what + ": no answer from the cluster in "
                        + TimeUnit.NANOSECONDS.toSeconds(watchdogNanos) + " s", false, inPlace));
            }
        }
    }

    /** Ends {@code op}: frees its slot (first, so the done callback's next command finds one), then reports. */
    private void answer(Op op, long ret) {
        IOException error = null;
        if (ret < 0) {
            error = failure("rbd " + KIND[op.kind] + " " + config.spec() + " at byte " + op.offset
                    + (op.length > 0 ? "+" + op.length : ""), KIND[op.kind], ret, op.lendEpoch);
        }
        Done done = op.done;
        release(op);
        done.done(error);
    }

    private void release(Op op) {
        if (op.abandoned) {
            return; // the slot was replaced and counted out of inFlight when it was abandoned
        }
        op.done = null;
        op.dst = null;
        op.source = MemorySegment.NULL;
        op.sink = MemorySegment.NULL;
        if (!op.oneShot.equals(MemorySegment.NULL)) {
            Native.free(op.oneShot);
            op.oneShot = MemorySegment.NULL;
        }
        free.add(op);
        if (inFlight.decrementAndGet() == 0 && closed) {
            synchronized (inFlight) {
                inFlight.notifyAll();
            }
        }
    }

    // ---- resize

    /** rbd_update_watch's callback, on a librbd thread: note it, wake the poller; nothing else (no re-entry). */
    private static void onUpdate(MemorySegment arg) {
        try {
            RbdImage img = WATCHED.get(arg.address());
            if (img != null) {
                img.updatePending.set(true);
                Native.wake(img.eventFd);
            }
        } catch (Throwable t) { // an exception escaping an upcall ends the JVM
            LOG.log(Level.WARNING, "rbd update callback", t);
        }
    }

    private void refreshSize() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment u64 = arena.allocate(JAVA_LONG);
            int r = Native.i(LibRbd.RBD_GET_SIZE, image, u64);
            if (r < 0) {
                noteFenced(r, "get_size");
                LOG.warning(config.spec() + ": rbd_get_size after an update failed: " + Errno.name(r));
                return;
            }
            long size = u64.get(JAVA_LONG, 0);
            if (size != sizeBytes) {
                LOG.info(config.spec() + ": size changed from " + sizeBytes + " to " + size + " bytes");
                sizeBytes = size;
                Runnable l = capacityListener;
                if (l != null) {
                    l.run();
                }
            }
        }
    }

    @Override
    public void resize(long newSizeBytes) throws IOException {
        long size = newSizeBytes / blockSize * blockSize;
        if (size < blockSize) {
            throw new IllegalArgumentException(config.spec() + ": size must be at least one block (" + blockSize + ")");
        }
        enter();
        try {
            int r = Native.i(LibRbd.RBD_RESIZE, image, size);
            noteFenced(r, "resize");
            check(r, "rbd_resize " + config.spec() + " to " + size);
            sizeBytes = size;
        } finally {
            leave();
        }
    }

    // ---- the blocking form: submit, then wait (on the device's I/O queue)

    /** Waits for one operation; librados' op timeout bounds the wait when the cluster stops answering. */
    private static final class Waiter implements Done {
        private IOException error;
        private boolean done;

        @Override
        public synchronized void done(IOException e) {
            error = e;
            done = true;
            notifyAll();
        }

        synchronized void await() throws IOException {
            boolean interrupted = false;
            while (!done) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true; // the buffers are librbd's until it completes: keep waiting
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (error != null) {
                throw error;
            }
        }
    }

    /** A slot, waiting for one while all are in flight (blocking callers are few: the device's I/O threads). */
    private Op take() throws IOException {
        ensureOpen();
        try {
            Op op = free.poll(Math.max(60, 2L * config.opTimeoutSeconds()), TimeUnit.SECONDS);
            if (op == null) {
                throw new BackstoreStatusException(SenseReason.BUSY, config.spec() + ": no operation slot came free");
            }
            return op;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(config.spec() + ": interrupted waiting for an operation slot");
        }
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException(config.spec() + ": backstore closed");
        }
    }

    private static void startOrClosed(boolean started, Waiter w) throws IOException {
        if (!started) {
            throw new IOException("rbd backstore closed");
        }
        w.await();
    }

    @Override
    public void read(long lba, ByteBuffer dst) throws IOException {
        Waiter w = new Waiter();
        startOrClosed(startRead(take(), lba, dst, w), w);
    }

    @Override
    public void write(long lba, ByteBuffer src, boolean fua) throws IOException {
        Waiter w = new Waiter();
        startOrClosed(startWrite(take(), lba, src, fua, w), w);
    }

    @Override
    public void flush() throws IOException {
        Waiter w = new Waiter();
        startOrClosed(start(take(), FLUSH, 0, 0, w), w);
    }

    @Override
    public void unmap(long lba, long blocks) throws IOException {
        Waiter w = new Waiter();
        startOrClosed(start(take(), DISCARD, lba * blockSize, blocks * blockSize, w), w);
    }

    @Override
    public void writeZeros(long lba, long blocks) throws IOException {
        writeSame(lba, blocks, ByteBuffer.allocate(blockSize));
    }

    @Override
    public void writeSame(long lba, long blocks, ByteBuffer block) throws IOException {
        Op op = take();
        MemorySegment.copy(MemorySegment.ofBuffer(block), 0, buffer(op, blockSize), 0, blockSize);
        Waiter w = new Waiter();
        startOrClosed(start(op, WRITE_SAME, lba * blockSize, blocks * blockSize, w), w);
    }

    @Override
    public long compareAndWrite(long lba, ByteBuffer verify, ByteBuffer data, boolean fua) throws IOException {
        int len = verify.remaining();
        if (data.remaining() != len) {
            throw new IllegalArgumentException("verify and write data differ in length");
        }
        if (!nativeCompareAndWrite(len)) {
            throw new UnsupportedOperationException(config.spec() + ": compare_and_write of " + len + " bytes");
        }
        Op op = take();
        inFlight.incrementAndGet(); // as start(): close() waits for this call
        long epoch = lockLent.now();
        long ret;
        try {
            if (closed) {
                throw new IOException(config.spec() + ": backstore closed");
            }
            if (fenced != null) {
                throw busyWhileFenced();
            }
            MemorySegment buf = buffer(op, 2L * len); // [verify | data]
            MemorySegment.copy(MemorySegment.ofBuffer(verify), 0, buf, 0, len);
            MemorySegment.copy(MemorySegment.ofBuffer(data), 0, buf, len, len);
            // The synchronous call, on the device's I/O queue: 16.2's rbd_aio_compare_and_write never signals the
            // image's eventfd (its completion stayed off rbd_poll_io_events in a probe), so it would hang here.
            ret = Native.l(LibRbd.RBD_COMPARE_AND_WRITE, image, lba * blockSize, (long) len, buf, buf.asSlice(len),
                    op.scratch.asSlice(8, 8), 0);
            if (ret == -Errno.EILSEQ) {
                // What mismatch_off counts from differs: the image offset of the byte (tcmu-runner subtracts the
                // start), while 16.2.15 gives the image offset of the object's start plus the offset in the buffer
                // (probed: 485 in the last sector of a 1 GiB image came back as 1069547520 + 485). The range is one
                // 512-byte-aligned sector and objects start on sectors, so the remainder is the offset either way.
                return op.scratch.get(JAVA_LONG, 8) % CAW_SECTOR;
            }
        } finally {
            release(op);
        }
        if (ret < 0) {
            throw failure("rbd compare_and_write " + config.spec() + " at byte " + lba * blockSize + "+" + len,
                    "compare_and_write", ret, epoch);
        }
        if (fua && cached) {
            flush();
        }
        return -1;
    }

    // ---- fenced: BUSY, then a new client (tcmu-runner's rbd handler on a lost lock or a blocklisted client)

    /** Why this gateway's client is fenced off the image while it is, else null: every command then gets BUSY. */
    private volatile String fenced;
    /** Reopen attempts since the fence (poller only, under {@link #reopenLock}) and when the next may start. */
    private int reopenAttempts;
    private long reopenNotBefore;
    /** When the fence was noted (System.nanoTime), and whether the wait for its operations was reported. */
    private long fencedAt;
    private boolean slowDrainLogged;
    /** The fenced client's address, to remove from the blocklist on the next attempt; null when done. */
    private String staleAddress;
    /** Held by a reopen, and by close() before it tears down, so that the two never interleave. */
    private final Object reopenLock = new Object();
    private final AtomicBoolean wakeScheduled = new AtomicBoolean();
    private final Object wakeLock = new Object();
    private boolean eventFdClosed;
    private static final int MAX_BACKOFF_SECONDS = 30;
    /** Commands answered BUSY since the fence; logged as one count when the image is reopened. */
    private final AtomicLong busyWhileFenced = new AtomicLong();
    /** Run after a reopen (gateway entries, the reservation store's watcher record): see {@link ImageLock}. */
    private final List<Runnable> clientListeners = new CopyOnWriteArrayList<>();
    /**
     * This client released the exclusive lock to hand it to another gateway (kept by {@link ImageLock}): an EROFS of an
     * operation that started before or during such a handover is a write that met the released lock, not a fence,
     * and the client needs no reopen.
     */
    private final LendEpoch lockLent = new LendEpoch();
    private final AtomicBoolean lentErofsLogged = new AtomicBoolean();
    /** Fenced operations that never ended and were left with the old client (since open). */
    private final AtomicLong abandonedOps = new AtomicLong();
    /**
     * Held shared by every {@link GuardedOwnership} call and exclusively while a reopen closes the fenced image and
     * client, so that no lock or metadata call runs on handles being closed.
     */
    private final java.util.concurrent.locks.ReentrantReadWriteLock handles =
            new java.util.concurrent.locks.ReentrantReadWriteLock();
    /** Operations were left behind with the fenced client: the reopen must not close it (poller only). */
    private boolean leaveOldClient;

    /** This gateway's current Ceph client address as the OSD blocklist names it (rados_getaddrs), or null. */
    String clientAddress() {
        synchronized (reopenLock) {
            MemorySegment c = cluster;
            return closed || c.equals(MemorySegment.NULL) ? null : RbdClient.address(c);
        }
    }

    /**
     * Notes a fence when {@code ret} says the client lost the image: ESHUTDOWN (the OSDs blocklisted it, after
     * another gateway broke its lock) or EROFS (it lost the exclusive lock). Logged once; the poller reopens.
     */
    private void noteFenced(long ret, String what) {
        noteFenced(ret, what, lockLent.now());
    }

    /** As {@link #noteFenced(long, String)} for an operation that started at {@code lendEpoch}. */
    private void noteFenced(long ret, String what, long lendEpoch) {
        if (ret != -Errno.ESHUTDOWN && ret != -Errno.EROFS || ret == -Errno.EROFS && lockLent.lentSince(lendEpoch)) {
            return;
        }
        synchronized (reopenLock) {
            if (fenced != null || closed) {
                return;
            }
            busyWhileFenced.set(0);
            fenced = what + " answered " + Errno.name(ret);
            reopenAttempts = 0;
            reopenNotBefore = System.nanoTime();
            fencedAt = reopenNotBefore;
            slowDrainLogged = false;
        }
        LOG.warning(config.spec() + ": fenced (" + what + " answered " + Errno.name(ret) + "): commands get BUSY"
                + " while the image is reopened with a new Ceph client");
        wakeIn(0);
    }

    private BackstoreStatusException busyWhileFenced() {
        busyWhileFenced.incrementAndGet();
        return new BackstoreStatusException(SenseReason.BUSY, config.spec() + ": fenced (" + fenced
                + "), reopening the image", true);
    }

    /**
     * The exception for a failed operation: a fence (ESHUTDOWN, EROFS) is noted and answered BUSY without a log
     * line of its own (the fence and the reopen are logged once each, with the count of BUSY answers); anything
     * else is {@link Errno#dataPathError}'s.
     */
    private IOException failure(String message, String what, long ret, long lendEpoch) {
        noteFenced(ret, what, lendEpoch);
        if (ret == -Errno.EROFS && lockLent.lentSince(lendEpoch)) { // a write that met a handover: not a fence
            if (lentErofsLogged.compareAndSet(false, true)) {
                LOG.warning(config.spec() + ": " + what + " answered EROFS after this gateway handed the lock over;"
                        + " BUSY, no reopen (logged once)");
            }
            return new BackstoreStatusException(SenseReason.BUSY, message + " failed: EROFS (the exclusive lock"
                    + " was handed to another gateway)", true);
        }
        if (ret == -Errno.ESHUTDOWN || ret == -Errno.EROFS) {
            busyWhileFenced.incrementAndGet();
            return new BackstoreStatusException(SenseReason.BUSY, message + " failed: " + Errno.name(ret)
                    + " (fenced; reopening the image)", true);
        }
        return Errno.dataPathError(message, ret);
    }

    /** A call on the image outside the op slots (diff, resize): counted like an operation, refused while fenced. */
    private void enter() throws IOException {
        inFlight.incrementAndGet(); // before reading closed/fenced, as start(): close() and reopen wait for it
        if (closed || fenced != null) {
            leave();
            ensureOpen();
            throw busyWhileFenced();
        }
    }

    private void leave() {
        if (inFlight.decrementAndGet() == 0 && closed) {
            synchronized (inFlight) {
                inFlight.notifyAll();
            }
        }
    }

    /** How long the reopen waits for the fenced client's operations before it leaves them behind: {@link FencedDrain}. */
    private long drainLimitNanos() {
        return FencedDrain.limitNanos(config.opTimeoutSeconds());
    }

    /** On the poller: once the fenced client has nothing in flight (or the drain limit passed) and the backoff has, reopen. */
    private void reopenWhenIdle() {
        long now = System.nanoTime();
        long wait = reopenNotBefore - now;
        int busy = inFlight.get();
        if (FencedDrain.next(now, fencedAt, busy, drainLimitNanos()) == FencedDrain.Step.ABANDON) {
            abandonStuck(now);
            busy = inFlight.get();
            if (busy > 0 && !slowDrainLogged) {
                slowDrainLogged = true; // calls outside the slots (diff, resize) run on their callers' threads
                LOG.warning(config.spec() + ": " + busy + " call(s) on the fenced client have not returned after "
                        + TimeUnit.NANOSECONDS.toSeconds(now - fencedAt) + " s; the reopen waits for them");
            }
        }
        if (busy > 0 || wait > 0) {
            wakeIn(Math.max(TimeUnit.SECONDS.toNanos(1), wait)); // operations end by librados' op timeout
            return;
        }
        reopen();
    }

    /**
     * Leaves the fenced client's operations that never ended behind, on the poller: each one's slot gets a new
     * {@link Op} (the old one's buffers stay librbd's, leaked on purpose), it is counted out of {@link #inFlight},
     * and the reopen then leaves the old client open rather than wait in rbd_close for them. Nothing polls the old
     * image afterwards, so their completions, if they ever come, are never delivered.
     *
     * Sets {@link #leaveOldClient} when any operation was left behind: the old client must then not be closed.
     */
    private void abandonStuck(long now) {
        int n = 0;
        for (int i = 0; i < ops.length; i++) {
            Op op = ops[i];
            if (free.contains(op)) {
                continue;
            }
            op.abandoned = true; // a submitter between poll() and release() now releases nothing
            if (free.remove(op)) { // it was released just now: keep it
                op.abandoned = false;
                free.add(op);
                continue;
            }
            // (a submitter that took this slot before the fence and stalled past the drain limit before reading
            // {@link #fenced} would issue it after the reopen; a stall of that length is not guarded against)
            Op fresh = new Op(i, Native.malloc(16));
            LEFT_WITH_LIBRBD.add(op);
            ops[i] = fresh;
            free.add(fresh);
            n++;
        }
        if (n == 0) {
            return;
        }
        leaveOldClient = true;
        inFlight.addAndGet(-n);
        abandonedOps.addAndGet(n);
        LOG.warning(config.spec() + ": " + n + " operation(s) of the fenced client did not end in "
                + TimeUnit.NANOSECONDS.toSeconds(now - fencedAt) + " s; left behind with that client (not closed,"
                + " its memory leaked) so that the image can be reopened");
    }

    /**
     * Closes the fenced client (its operations have ended) and opens the image with a new one, after removing the
     * old client's address from the OSD blocklist so this gateway's address works again; on failure retries with
     * a backoff doubling up to {@value #MAX_BACKOFF_SECONDS} s. On the poller, which alone polls the image's
     * completions, so nothing polls the image being replaced.
     */
    private void reopen() {
        synchronized (reopenLock) {
            if (closed || fenced == null) {
                return;
            }
            if (!image.equals(MemorySegment.NULL)) {
                handles.writeLock().lock(); // no ImageLock call under way on the handles closed here
                try {
                    closeFenced();
                } finally {
                    handles.writeLock().unlock();
                }
            }
            try {
                RbdClient c = RbdClient.open(config, staleAddress);
                int n = Native.i(LibRbd.RBD_SET_IMAGE_NOTIFICATION, c.image(), eventFd, LibRbd.EVENT_TYPE_EVENTFD);
                if (n < 0) {
                    c.close();
                    check(n, "rbd_set_image_notification " + config.spec());
                }
                cluster = c.cluster();
                ioctx = c.ioctx();
                image = c.image();
                cached = RbdClient.cacheEnabled(c.cluster());
                watch();
                staleAddress = null;
                fenced = null; // publishes the fields above to submitters (volatile)
                LOG.info(config.spec() + ": reopened with a new Ceph client (" + RbdClient.address(c.cluster())
                        + ") after " + (reopenAttempts + 1) + " attempt(s) in "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - fencedAt) + " ms; "
                        + busyWhileFenced.getAndSet(0) + " command(s) got BUSY meanwhile; commands are served again");
                clientChanged();
                if (c.size() != sizeBytes) {
                    refreshSize();
                }
            } catch (IOException | RuntimeException e) {
                reopenAttempts++;
                long backoff = Math.min(MAX_BACKOFF_SECONDS, 1L << Math.min(reopenAttempts - 1, 5));
                reopenNotBefore = System.nanoTime() + TimeUnit.SECONDS.toNanos(backoff);
                LOG.warning(config.spec() + ": reopen after the fence failed (attempt " + reopenAttempts + "): "
                        + e.getMessage() + "; retrying in " + backoff + " s");
                wakeIn(TimeUnit.SECONDS.toNanos(backoff));
            }
        }
    }

    /** Closes (or, with operations left behind, leaves) the fenced client; under the handle lock, exclusively. */
    private void closeFenced() {
        String address = RbdClient.address(cluster);
        staleAddress = address != null ? address : staleAddress;
        if (leaveOldClient) { // rbd_update_unwatch and rbd_close would wait for the operations left behind
            watchHandle = -1;
            leaveOldClient = false;
            staleAddress = null; // it stays blocklisted: the operations left behind must never land
        } else {
            if (watchHandle >= 0) {
                Native.i(LibRbd.RBD_UPDATE_UNWATCH, image, watchHandle);
                watchHandle = -1;
            }
            int r = new RbdClient(cluster, ioctx, image, 0, 0).close();
            if (r < 0) {
                LOG.fine(config.spec() + ": rbd_close of the fenced client: " + Errno.name(r));
            }
        }
        image = MemorySegment.NULL;
        ioctx = MemorySegment.NULL;
        cluster = MemorySegment.NULL;
    }

    /** Tells the client listeners, on a thread of their own: they block on the cluster, the poller must not. */
    private void clientChanged() {
        if (clientListeners.isEmpty()) {
            return;
        }
        Thread t = new Thread(() -> {
            for (Runnable r : clientListeners) {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    LOG.warning(config.spec() + ": after the reopen: " + e);
                }
            }
        }, "rbd-reopened-" + config.spec());
        t.setDaemon(true);
        t.start();
    }

    /** Commands answered BUSY since the current fence began (tests). */
    long busyAnswersWhileFenced() { return busyWhileFenced.get(); }

    /** Fenced operations left behind since open (tests). */
    long abandonedOps() { return abandonedOps.get(); }

    /** Wakes the poller after {@code nanos} (at most one wake-up pending), unless closed by then. */
    private void wakeIn(long nanos) {
        if (!wakeScheduled.compareAndSet(false, true)) {
            return;
        }
        WATCHDOG.schedule(() -> {
            wakeScheduled.set(false);
            synchronized (wakeLock) { // closeEventFd takes it: never a write to a closed (or reused) descriptor
                if (!eventFdClosed) {
                    Native.wake(eventFd);
                }
            }
        }, nanos, TimeUnit.NANOSECONDS);
    }

    private void closeEventFd() {
        synchronized (wakeLock) {
            eventFdClosed = true;
            Native.close(eventFd);
        }
    }

    /** close(): no reopen runs after this returns, and none is under way (it finishes first). */
    private void stopReopening() {
        synchronized (reopenLock) {
            fenced = null;
        }
    }

    // ---- close

    @Override
    public void close() throws IOException {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        boolean drained = awaitIdle();
        if (watchdog != null) {
            watchdog.cancel(false);
        }
        stopReopening();
        if (watchHandle >= 0) {
            int r = Native.i(LibRbd.RBD_UPDATE_UNWATCH, image, watchHandle); // waits for a running callback
            if (r < 0) {
                LOG.warning(config.spec() + ": rbd_update_unwatch: " + Errno.name(r));
            }
        }
        WATCHED.remove(id);
        stopping = true;
        Native.wake(eventFd);
        try {
            poller.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // rbd_close waits for librbd's own work (an operation stuck waiting for the exclusive lock of a cluster that
        // is gone may never end): done on a thread of its own, waited for a bounded time, else left behind
        int[] closed = {Integer.MIN_VALUE};
        Thread closer = new Thread(() -> {
            int c = new RbdClient(cluster, ioctx, image, 0, 0).close(); // NULLs after a failed reopen
            synchronized (closed) {
                closed[0] = c;
            }
        }, "rbd-close-" + config.spec());
        closer.setDaemon(true);
        closer.start();
        try {
            closer.join(TimeUnit.SECONDS.toMillis(Math.max(30, 2L * config.opTimeoutSeconds())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int r;
        synchronized (closed) {
            r = closed[0];
        }
        if (!drained || r == Integer.MIN_VALUE) { // librbd may still fill a read's buffer of ours
            for (Op op : ops) {
                if (!op.sink.equals(MemorySegment.NULL)) {
                    LEFT_WITH_LIBRBD.add(op);
                }
            }
        }
        if (r == Integer.MIN_VALUE) {
            LOG.warning(config.spec() + ": rbd_close did not finish; left to finish (or not) on its own thread");
            return; // the eventfd and buffers stay with librbd
        }
        closeEventFd();
        if (drained) { // else librbd may still hold them: leaked on purpose
            for (Op op : ops) {
                Native.free(op.buffer);
            }
            Native.free(zeroBlock);
        }
        if (r < 0) {
            throw new IOException("rbd_close " + config.spec() + ": " + Errno.name(r));
        }
    }

    /** Waits for the operations in flight; false when they did not end within twice the op timeout (or 60 s). */
    private boolean awaitIdle() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(60, 2L * config.opTimeoutSeconds()));
        synchronized (inFlight) {
            while (inFlight.get() > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    LOG.warning(config.spec() + ": " + inFlight.get() + " operations still in flight at close");
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(inFlight, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return true;
    }

    private static void check(long r, String what) throws IOException {
        if (r < 0) {
            throw new IOException(what + " failed: " + Errno.name(r));
        }
    }

    private static MemorySegment updateCallback() {
        if (LibRbd.MISSING != null) {
            return MemorySegment.NULL;
        }
        try {
            return LibRbd.updateCallback(MethodHandles.lookup().findStatic(RbdImage.class, "onUpdate",
                    MethodType.methodType(void.class, MemorySegment.class)), Arena.global());
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
