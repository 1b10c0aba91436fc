package io.hostwide.tcm.backstore.rbd;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;

import static java.lang.foreign.ValueLayout.ADDRESS;

/**
 * One connected RADOS client and its pool handle, configured as {@link RbdImage} configures the image's (same conf,
 * id, keyring, op timeouts, options), for {@link RadosReservationStore}: its instance id (gid) and address are what
 * notify replies and the OSD blocklist name it by.
 */
@SuppressWarnings("restricted") // reinterpret of the strdup'd address string
final class RadosClient {
    final MemorySegment cluster;
    final MemorySegment ioctx;
    final long gid;
    final String address;
    /** Set when an op or the watch answered -ESHUTDOWN (blocklisted): never used for new calls again. */
    volatile boolean fenced;

    private RadosClient(MemorySegment cluster, MemorySegment ioctx, long gid, String address) {
        this.cluster = cluster;
        this.ioctx = ioctx;
        this.gid = gid;
        this.address = address;
    }

    static RadosClient connect(RbdConfig config) throws IOException {
        MemorySegment cluster = MemorySegment.NULL;
        MemorySegment ioctx = MemorySegment.NULL;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            cluster = RbdClient.configured(arena, config, false);
            check(Native.i(LibRbd.RADOS_CONNECT, cluster), "connecting the reservation client to the Ceph cluster"
                    + (config.conf() == null ? "" : " of " + config.conf()));
            ioctx = RbdClient.pool(arena, cluster, config);
            long gid = (long) LibRados.call(LibRados.GET_INSTANCE_ID, cluster);
            check(LibRados.callInt(LibRados.GETADDRS, cluster, out), "rados_getaddrs");
            MemorySegment s = out.get(ADDRESS, 0);
            String addr = s.reinterpret(Integer.MAX_VALUE).getString(0);
            Native.free(s);
            return new RadosClient(cluster, ioctx, gid, blocklistForm(addr));
        } catch (IOException | RuntimeException | Error e) {
            if (!ioctx.equals(MemorySegment.NULL)) {
                Native.v(LibRbd.RADOS_IOCTX_DESTROY, ioctx);
            }
            if (!cluster.equals(MemorySegment.NULL)) {
                Native.v(LibRbd.RADOS_SHUTDOWN, cluster);
            }
            throw e;
        }
    }

    /**
     * The address as {@code osd blocklist add} takes it: rados_getaddrs may give an address vector
     * ({@code [v2:127.0.0.1:0/123,v1:...]}); a client's entries share IP and nonce, so the first, without its type
     * prefix, names it.
     */
    static String blocklistForm(String addrs) {
        String a = addrs.trim();
        if (a.startsWith("[")) {
            a = a.substring(1, a.endsWith("]") ? a.length() - 1 : a.length());
        }
        int comma = a.indexOf(',');
        if (comma >= 0) {
            a = a.substring(0, comma);
        }
        for (String prefix : new String[] {"v1:", "v2:", "any:"}) {
            if (a.startsWith(prefix)) {
                a = a.substring(prefix.length());
            }
        }
        return a;
    }

    /** The image's id (rbd_get_id), which names its RADOS objects and, here, its reservation object. */
    String imageId(RbdConfig config) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int r = LibRados.callInt(LibRados.RBD_OPEN_READ_ONLY, ioctx, arena.allocateFrom(config.image()), out,
                    MemorySegment.NULL);
            if (r == -Errno.ENOENT) {
                throw new IOException("image '" + config.spec() + "' does not exist");
            }
            check(r, "rbd_open_read_only " + config.spec());
            MemorySegment image = out.get(ADDRESS, 0);
            try {
                MemorySegment id = arena.allocate(64);
                check(LibRados.callInt(LibRados.RBD_GET_ID, image, id, 64L), "rbd_get_id " + config.spec());
                return id.getString(0);
            } finally {
                Native.i(LibRbd.RBD_CLOSE, image);
            }
        }
    }

    void shutdown() {
        Native.v(LibRbd.RADOS_IOCTX_DESTROY, ioctx);
        Native.v(LibRbd.RADOS_SHUTDOWN, cluster);
    }

    private static void check(long r, String what) throws IOException {
        if (r < 0) {
            throw new IOException(what + " failed: " + Errno.name(r));
        }
    }
}
