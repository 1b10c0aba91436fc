package io.hostwide.tcm.backstore.rbd;

import java.util.Map;
import java.util.Objects;

/**
 * Where an RBD backstore's image lives and how to reach it: the Ceph client configuration file, the pool and the
 * image, optionally the client name (cephx user without "client.", as {@code rbd --id}) and a keyring; with cephx
 * the key usually comes from the conf's keyring setting instead.
 *
 * @param conf path of ceph.conf (monitors, auth); null for librados' default search ($CEPH_CONF, /etc/ceph/ceph.conf)
 * @param pool the pool holding the image
 * @param image the image name
 * @param id client name, e.g. "admin" (null: librados' default, client.admin)
 * @param keyring keyring path (null: from the conf)
 * @param opTimeoutSeconds rados_osd_op_timeout and rados_mon_op_timeout: an operation a dead cluster never answers
 *        fails with ETIMEDOUT (BUSY to the initiator) after this long instead of hanging; 0 keeps librados' default
 *        (no timeout)
 * @param options further client options for rados_conf_set (e.g. "rbd_cache": "false"), applied last
 * @param queueDepth operations in flight at once on this image (commands beyond it get TASK SET FULL)
 */
public record RbdConfig(String conf, String pool, String image, String id, String keyring, int opTimeoutSeconds,
                        Map<String, String> options, int queueDepth) {
    /** 30 s, as tcmu-runner's default osd op timeout: long enough for an OSD to fail over, short of an initiator's. */
    public static final int DEFAULT_OP_TIMEOUT_SECONDS = 30;
    public static final int DEFAULT_QUEUE_DEPTH = 128;
    public static final int MAX_QUEUE_DEPTH = 4096;

    public RbdConfig {
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(image, "image");
        if (pool.isEmpty() || image.isEmpty()) {
            throw new IllegalArgumentException("pool and image must not be empty");
        }
        if (opTimeoutSeconds < 0) {
            throw new IllegalArgumentException("op timeout must be 0 (none) or positive, not " + opTimeoutSeconds);
        }
        if (queueDepth < 1 || queueDepth > MAX_QUEUE_DEPTH) {
            throw new IllegalArgumentException("queue depth must be 1.." + MAX_QUEUE_DEPTH + ", not " + queueDepth);
        }
        options = options == null ? Map.of() : Map.copyOf(options);
    }

    /** The image with the defaults: no id or keyring, 30 s timeouts, no options, queue depth 128. */
    public static RbdConfig of(String conf, String pool, String image) {
        return new RbdConfig(conf, pool, image, null, null, DEFAULT_OP_TIMEOUT_SECONDS, Map.of(), DEFAULT_QUEUE_DEPTH);
    }

    /** pool/image, as rbd(8) names it. */
    public String spec() { return pool + "/" + image; }
}
