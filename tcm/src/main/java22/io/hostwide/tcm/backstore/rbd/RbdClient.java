package io.hostwide.tcm.backstore.rbd;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.logging.Logger;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One librados client connected to the cluster of an {@link RbdConfig}, with the pool's I/O context and the image
 * open: what {@link RbdImage} opens at start, and opens anew (a new client, so a new address) after this gateway was
 * fenced. Also the two cluster-level calls reopening needs: this client's address, as the OSD blocklist names it,
 * and removing an address from the blocklist.
 *
 * @param size the image's size in bytes when opened
 * @param features the image's feature bits (rbd_get_features)
 */
record RbdClient(MemorySegment cluster, MemorySegment ioctx, MemorySegment image, long size, long features) {
    private static final Logger LOG = Logger.getLogger("io.hostwide.tcm.backstore.rbd");

    /**
     * Creates a client, connects, and opens the pool and the image; on failure closes what it opened.
     *
     * @param staleAddress an address of this gateway's earlier, fenced client to remove from the OSD blocklist
     *        before the image is opened (null: none); failing to remove it is logged, not fatal
     */
    static RbdClient open(RbdConfig config, String staleAddress) throws IOException {
        MemorySegment cluster = MemorySegment.NULL;
        MemorySegment ioctx = MemorySegment.NULL;
        MemorySegment image = MemorySegment.NULL;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            cluster = configured(arena, config, true);
            check(Native.i(LibRbd.RADOS_CONNECT, cluster), "connecting to the Ceph cluster"
                    + (config.conf() == null ? "" : " of " + config.conf()));
            if (staleAddress != null) {
                unblocklist(cluster, config.spec(), staleAddress);
            }
            ioctx = pool(arena, cluster, config);
            int r = Native.i(LibRbd.RBD_OPEN, ioctx, arena.allocateFrom(config.image()), out, MemorySegment.NULL);
            if (r == -Errno.ENOENT) {
                throw new IOException("image '" + config.spec() + "' does not exist");
            }
            check(r, "rbd_open " + config.spec());
            image = out.get(ADDRESS, 0);
            MemorySegment u64 = arena.allocate(JAVA_LONG);
            check(Native.i(LibRbd.RBD_GET_SIZE, image, u64), "rbd_get_size " + config.spec());
            long size = u64.get(JAVA_LONG, 0);
            check(Native.i(LibRbd.RBD_GET_FEATURES, image, u64), "rbd_get_features " + config.spec());
            return new RbdClient(cluster, ioctx, image, size, u64.get(JAVA_LONG, 0));
        } catch (IOException | RuntimeException | Error e) {
            new RbdClient(cluster, ioctx, image, 0, 0).close();
            throw e;
        }
    }

    /** Closes the image, the I/O context and the client (each when open); rbd_close's result, or 0. */
    int close() {
        int r = 0;
        if (!image.equals(MemorySegment.NULL)) {
            r = Native.i(LibRbd.RBD_CLOSE, image);
        }
        if (!ioctx.equals(MemorySegment.NULL)) {
            Native.v(LibRbd.RADOS_IOCTX_DESTROY, ioctx);
        }
        if (!cluster.equals(MemorySegment.NULL)) {
            Native.v(LibRbd.RADOS_SHUTDOWN, cluster);
        }
        return r;
    }

    /**
     * The address of {@code cluster}'s client as the OSD blocklist names it (rados_getaddrs, e.g.
     * "127.0.0.1:0/3141592653"), or null when librados cannot tell.
     */
    static String address(MemorySegment cluster) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            if (Native.i(LibRbd.RADOS_GETADDRS, cluster, out) < 0) {
                return null;
            }
            MemorySegment s = out.get(ADDRESS, 0);
            if (s.equals(MemorySegment.NULL)) {
                return null;
            }
            try {
                return s.reinterpret(Long.MAX_VALUE).getString(0);
            } finally {
                Native.free(s); // strdup'd by librados
            }
        }
    }

    /**
     * Removes {@code address} from the OSD blocklist ({@code osd blocklist rm}, a monitor command; needs the mon
     * capability for it). An address that is not listed is fine: the monitors answer success for it too. A client
     * connected a moment ago can be answered EPERM "wrong fsid" (Ceph 16: the command left before the client had
     * the cluster's fsid; seen in CI right after a reopen), so that answer is retried a few times first.
     */
    static void unblocklist(MemorySegment cluster, String spec, String address) {
        String json = "{\"prefix\": \"osd blocklist\", \"blocklistop\": \"rm\", \"addr\": \"" + address + "\"}";
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cmd = arena.allocate(ADDRESS);
            cmd.set(ADDRESS, 0, arena.allocateFrom(json));
            MemorySegment outs = arena.allocate(ADDRESS);
            MemorySegment outsLen = arena.allocate(JAVA_LONG);
            int r;
            String status;
            for (int attempt = 1; ; attempt++) {
                r = monCommand(cluster, cmd, outs, outsLen);
                status = "";
                MemorySegment s = outs.get(ADDRESS, 0);
                if (!s.equals(MemorySegment.NULL)) {
                    status = new String(s.reinterpret(outsLen.get(JAVA_LONG, 0)).toArray(JAVA_BYTE),
                            StandardCharsets.UTF_8).strip();
                    Native.v(LibRbd.RADOS_BUFFER_FREE, s);
                    outs.set(ADDRESS, 0, MemorySegment.NULL);
                }
                if (r != -Errno.EPERM || !status.contains("wrong fsid") || attempt == 5) {
                    break;
                }
                try {
                    Thread.sleep(100L * attempt);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            if (r < 0) {
                LOG.warning(spec + ": removing this gateway's fenced address " + address + " from the OSD blocklist"
                        + " failed: " + Errno.name(r) + (status.isEmpty() ? "" : " (" + status + ")"));
            } else {
                LOG.info(spec + ": " + (status.isEmpty() ? "removed " + address + " from the OSD blocklist" : status));
            }
        }
    }

    private static int monCommand(MemorySegment cluster, MemorySegment cmd, MemorySegment outs,
                                  MemorySegment outsLen) {
        try {
            return (int) LibRbd.RADOS_MON_COMMAND.invokeExact(cluster, cmd, 1L, MemorySegment.NULL, 0L,
                    MemorySegment.NULL, MemorySegment.NULL, outs, outsLen);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * A new RADOS client handle (not yet connected) configured from {@code config}: its conf file, id, keyring and
     * op timeouts, then the config's options. For an image's client ({@code forImage}) also the librbd settings the
     * backstore relies on; another client (the reservation store's) gets no {@code rbd_*} option. On failure the
     * handle is shut down and the exception thrown.
     */
    static MemorySegment configured(Arena arena, RbdConfig config, boolean forImage) throws IOException {
        MemorySegment out = arena.allocate(ADDRESS);
        MemorySegment id = config.id() == null ? MemorySegment.NULL : arena.allocateFrom(config.id());
        check(Native.i(LibRbd.RADOS_CREATE, out, id), "rados_create" + (config.id() == null ? "" : " for client." + config.id()));
        MemorySegment cluster = out.get(ADDRESS, 0);
        try {
            MemorySegment confPath = config.conf() == null ? MemorySegment.NULL : arena.allocateFrom(config.conf());
            check(Native.i(LibRbd.RADOS_CONF_READ_FILE, cluster, confPath),
                    "reading the Ceph configuration " + (config.conf() == null ? "(default search)" : config.conf()));
            if (config.keyring() != null) {
                confSet(arena, cluster, "keyring", config.keyring());
            }
            if (config.opTimeoutSeconds() > 0) {
                String t = Integer.toString(config.opTimeoutSeconds());
                // a dead cluster answers ETIMEDOUT (BUSY) instead of leaving commands hanging forever
                confSet(arena, cluster, "rados_osd_op_timeout", t);
                confSet(arena, cluster, "rados_mon_op_timeout", t);
                confSet(arena, cluster, "client_mount_timeout", t);
            }
            if (forImage) {
                // librbd copies a write's data before rbd_aio_write2 returns, so the caller's Data-Out buffer can go
                // to it directly (RbdImage.startWrite) and be reused at once, even when the watchdog answers first
                confSet(arena, cluster, "rbd_disable_zero_copy_writes", "true");
                // Discards must zero what they cover, also partial objects, for LBPRZ = 1 (SBC-4 §4.7.4.5)
                confSet(arena, cluster, "rbd_skip_partial_discard", "false");
                // No librbd cache, as tcmu-runner: the initiator's own cache and SYNCHRONIZE CACHE/FUA do the ordering.
                // With it on, librbd turns write-around at the first flush and acknowledges writes before any OSD
                // has them, so the OSD's queue is bounded by rbd_cache_max_dirty (24 MiB) instead of the initiator's
                // queue depth (fio's librbd, cache on, had 150-230 writes in flight at the OSD at iodepth 16: README
                // "What the OSD receives per client operation")
                confSet(arena, cluster, "rbd_cache", "false");
                // Submit on the caller's thread instead of handing every request to librbd's io_context_pool first:
                // one thread hop and wake-up less per operation (measured on 4 KiB reads: io_context_pool CPU per op
                // about halved, the work moving to the submitting connection thread). 16.2's image dispatch layers
                // after the queue are asynchronous (exclusive lock, refresh, QoS queue the request and go on), so the
                // call returns without waiting for the cluster; it can wait on librados' own throttle
                // (objecter_inflight_ops 1024, objecter_inflight_op_bytes 100 MiB in flight per client), which then
                // holds the connection's reader back as backpressure, and on librbd's image locks held briefly.
                confSet(arena, cluster, "rbd_non_blocking_aio", "false");
            }
            for (Map.Entry<String, String> e : config.options().entrySet()) {
                if (forImage || !e.getKey().startsWith("rbd_")) { // librbd's options mean nothing to other clients
                    confSet(arena, cluster, e.getKey(), e.getValue());
                }
            }
            return cluster;
        } catch (IOException | RuntimeException | Error e) {
            Native.v(LibRbd.RADOS_SHUTDOWN, cluster);
            throw e;
        }
    }

    /**
     * Whether librbd's cache is on for {@code cluster}'s images ({@code rbd_cache}, as the conf file, the defaults
     * set in {@link #configured} and the config's options left it). Only then is a completed write possibly not yet
     * on an OSD, so only then does FUA need a flush after the write. True when the value cannot be read.
     */
    static boolean cacheEnabled(MemorySegment cluster) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(16);
            int r;
            try {
                r = (int) LibRbd.RADOS_CONF_GET.invokeExact(cluster, arena.allocateFrom("rbd_cache"), buf,
                        buf.byteSize());
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
            return r < 0 || !"false".equals(buf.getString(0));
        }
    }

    /** The I/O context of {@code config}'s pool on the connected {@code cluster}. */
    static MemorySegment pool(Arena arena, MemorySegment cluster, RbdConfig config) throws IOException {
        MemorySegment out = arena.allocate(ADDRESS);
        int r = Native.i(LibRbd.RADOS_IOCTX_CREATE, cluster, arena.allocateFrom(config.pool()), out);
        if (r == -Errno.ENOENT) {
            throw new IOException("pool '" + config.pool() + "' does not exist");
        }
        check(r, "opening pool " + config.pool());
        return out.get(ADDRESS, 0);
    }

    private static void confSet(Arena arena, MemorySegment cluster, String key, String value) throws IOException {
        int r = Native.i(LibRbd.RADOS_CONF_SET, cluster, arena.allocateFrom(key), arena.allocateFrom(value));
        if (r < 0) {
            throw new IOException("Ceph option " + key + "=" + value + " refused: " + Errno.name(r));
        }
    }

    private static void check(long r, String what) throws IOException {
        if (r < 0) {
            throw new IOException(what + " failed: " + Errno.name(r));
        }
    }
}
