package io.hostwide.management.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.hostwide.iscsi.server.IscsiTargetServer;

import java.util.List;
import java.util.Map;

/**
 * The {@code hostwide serve} configuration file (JSON). Every key is optional
 * except where noted; unknown keys are errors, so a typo never passes silently.
 *
 * <pre>{@code
 * {
 *   "portals": ["127.0.0.1:3260"],
 *   "session": { "queue_depth": 128, "nop_in_interval_ms": 15000, "nop_in_timeout_ms": 15000 },
 *   "limits": { "pending_logins": 128, "pending_logins_per_address": 16, "ram_budget": "1g" },
 *   "discovery_auth": { "user": "disc", "secret": "...", "mutual_user": "...", "mutual_secret": "..." },
 *   "metrics": { "listen": "127.0.0.1:9465", "compat": "ceph-iscsi" },
 *   "gateway": { "name": "gw-a", "port_group": 1, "alua": "implicit" },
 *   "backstores": {
 *     "ram0":  { "type": "ram",  "size": "1g", "block_size": 512, "physical_block_size": 4096, "thin": true },
 *     "disk1": { "type": "file", "path": "/srv/disk1.img", "size": "10g", "queue_depth": 32,
 *                "write_cache": true, "direct": false, "removable": false, "write_protect": false },
 *     "vol1":  { "type": "block", "path": "/dev/zvol/tank/vol1", "direct": true, "thin": true }
 *   },
 *   "targets": [ {
 *     "name": "iqn.2026-12.io.hostwide:target0",
 *     "auth": { "user": "u", "secret": "..." },
 *     "luns": [ { "lun": 0, "backstore": "ram0" } ],
 *     "acls": [ { "initiator": "iqn.1994-05.com.redhat:client", "luns": [ { "lun": 0, "read_only": false } ] } ]
 *   } ]
 * }
 * }</pre>
 * A target without {@code acls} admits every initiator to all its LUNs. {@code physical_block_size} (default:
 * {@code block_size}) is a power-of-two multiple of {@code block_size}, reported as LOGICAL BLOCKS PER PHYSICAL
 * BLOCK EXPONENT (SBC-4 §5.22.2) and used as the unmap granularity. {@code sanitize_rate} (bytes per second,
 * e.g. {@code "128m"}; default: unpaced) is the medium bandwidth a SANITIZE OVERWRITE is paced to, so that an
 * emulated disk's sanitize lasts as a real one's would. A {@code block} backstore takes its size, block sizes,
 * rotation and write cache mode from the device (sysfs); {@code size} and {@code block_size} may be given as checks
 * and must then match it; {@code direct} (O_DIRECT) defaults to true; {@code thin} offers UNMAP (as BLKDISCARD)
 * when the device discards.
 */
public record ServeConfig(List<String> portals, Session session,
                          @JsonProperty("discovery_auth") Chap discoveryAuth,
                          Map<String, Backstore> backstores, List<Target> targets, Limits limits,
                          Metrics metrics, Gateway gateway) {

    /** Canonical: what the JSON binds to. */
    @com.fasterxml.jackson.annotation.JsonCreator
    public ServeConfig {
    }

    /** A configuration without a {@code gateway} section (one gateway, TPG 1). */
    public ServeConfig(List<String> portals, Session session, Chap discoveryAuth, Map<String, Backstore> backstores,
                       List<Target> targets, Limits limits, Metrics metrics) {
        this(portals, session, discoveryAuth, backstores, targets, limits, metrics, null);
    }

    /**
     * This process as one of several gateways exporting the same LUs (issue 16; README "Two gateways"):
     * {@code port_group} (1..65535) is its iSCSI TPGT for every target, its ALUA target port group id and the
     * relative target port identifier of each target's port, so that every gateway's ports differ; {@code name}
     * (required) names it in the other gateways' REPORT TARGET PORT GROUPS bookkeeping; {@code alua}:
     * {@code "implicit"} (default; non-owners Active/Non-optimized, a write moves the RBD lock) or
     * {@code "explicit"} (non-owners Standby, SET TARGET PORT GROUPS moves it); {@code handover_timeout_ms}
     * ({@value #MIN_HANDOVER_TIMEOUT_MS}..{@value #MAX_HANDOVER_TIMEOUT_MS}, default {@value
     * #DEFAULT_HANDOVER_TIMEOUT_MS}): how long a gateway that needs the RBD lock waits for the holder to hand it
     * over before it fences the holder as dead. Shorter is a faster takeover of a dead owner; too short fences a
     * live owner that was merely slow to answer (handovers took up to about 0.7 s on a loaded machine).
     */
    public record Gateway(String name, @JsonProperty("port_group") Integer portGroup, String alua,
                          @JsonProperty("handover_timeout_ms") Long handoverTimeoutMs) {
        public static final long DEFAULT_HANDOVER_TIMEOUT_MS = 2000;
        public static final long MIN_HANDOVER_TIMEOUT_MS = 100;
        public static final long MAX_HANDOVER_TIMEOUT_MS = 60_000;

        /** A gateway with the default handover timeout. */
        public Gateway(String name, Integer portGroup, String alua) {
            this(name, portGroup, alua, null);
        }

        /** The handover timeout in force: {@code handover_timeout_ms}, or the default without it. */
        public java.time.Duration handoverTimeout() {
            return java.time.Duration.ofMillis(handoverTimeoutMs == null ? DEFAULT_HANDOVER_TIMEOUT_MS
                    : handoverTimeoutMs);
        }

        /** The port group in force: 1 without a gateway section. */
        public static int portGroupOf(Gateway g) {
            return g == null || g.portGroup() == null ? 1 : g.portGroup();
        }

        /** Whether ALUA is explicit (SET TARGET PORT GROUPS moves ownership). */
        public boolean explicit() {
            return "explicit".equals(alua);
        }
    }

    /**
     * Prometheus metrics at {@code http://listen/metrics} (text format 0.0.4): {@code listen} is {@code HOST:PORT}
     * or a bare {@code PORT} (loopback); beyond loopback it needs {@code --insecure}, since the page names every
     * target and initiator. {@code compat}: {@code "ceph-iscsi"} adds the Ceph iSCSI gateway's metric names.
     */
    public record Metrics(String listen, String compat) {
    }

    /**
     * {@code nop_in_interval_ms}: NOP-In pings on connections silent that long (0 = none; default 15000);
     * {@code nop_in_timeout_ms}: a ping unanswered that long ends the connection (default 15000).
     */
    public record Session(@JsonProperty("queue_depth") Integer queueDepth,
                          @JsonProperty("nop_in_interval_ms") Integer nopInIntervalMs,
                          @JsonProperty("nop_in_timeout_ms") Integer nopInTimeoutMs) {
    }

    /**
     * Caps on connections that have not logged in yet (not in the full feature phase): {@code pending_logins} at
     * once (default 128), {@code pending_logins_per_address} of them from one source address (default 16, at most
 * {@code pending_logins}). One over
     * a cap is closed as soon as it is accepted, and a log line says so. {@code ram_budget} (a size): the memory
     * all RAM backstores' pages may take together (default: half the heap; see
     * {@link io.hostwide.tcm.backstore.RamBudget#defaultLimit(long)}).
     */
    public record Limits(@JsonProperty("pending_logins") Integer pendingLogins,
                         @JsonProperty("pending_logins_per_address") Integer pendingLoginsPerAddress,
                         @JsonProperty("ram_budget") String ramBudget) {

        /** The overall cap in force. */
        public int total() {
            return pendingLogins == null ? IscsiTargetServer.DEFAULT_PENDING_LOGINS : pendingLogins;
        }

        /** The per-address cap in force; by default 16, or the overall cap when that is lower. */
        public int perAddress() {
            return pendingLoginsPerAddress == null
                    ? Math.min(IscsiTargetServer.DEFAULT_PENDING_LOGINS_PER_ADDRESS, total()) : pendingLoginsPerAddress;
        }
    }

    /** CHAP credentials; the mutual pair is the target's own, for mutual CHAP. */
    public record Chap(String user, String secret,
                       @JsonProperty("mutual_user") String mutualUser,
                       @JsonProperty("mutual_secret") String mutualSecret) {
        @Override
        public String toString() { // never print secrets
            return "Chap[user=" + user + (mutualUser == null ? "" : ", mutual_user=" + mutualUser) + "]";
        }
    }

    public record Backstore(String type, String size, String path,
                            @JsonProperty("block_size") Integer blockSize,
                            Boolean thin,
                            @JsonProperty("queue_depth") Integer queueDepth,
                            @JsonProperty("write_cache") Boolean writeCache,
                            Boolean direct,
                            Boolean removable,
                            @JsonProperty("write_protect") Boolean writeProtect,
                            @JsonProperty("physical_block_size") Integer physicalBlockSize,
                            @JsonProperty("sanitize_rate") String sanitizeRate,
                            String pool, String image, String conf, String id, String keyring,
                            @JsonProperty("op_timeout") Integer opTimeout,
                            String reservations) {
        /** rbd {@code "reservations"}: PR and SPC-2 state in a RADOS object every gateway shares (the default). */
        public static final String RESERVATIONS_RADOS = "rados";
        /** rbd {@code "reservations"}: PR and SPC-2 state in this process only, as for the other kinds. */
        public static final String RESERVATIONS_LOCAL = "local";

        /** Whether an rbd backstore keeps its reservations in RADOS ({@code "reservations"} unset or "rados"). */
        public boolean sharedReservations() {
            return "rbd".equals(type) && (reservations == null || RESERVATIONS_RADOS.equals(reservations));
        }

        /** A backstore of the kinds before rbd (no pool, image, conf, id, keyring, op_timeout or reservations). */
        public Backstore(String type, String size, String path, Integer blockSize, Boolean thin, Integer queueDepth,
                         Boolean writeCache, Boolean direct, Boolean removable, Boolean writeProtect,
                         Integer physicalBlockSize, String sanitizeRate) {
            this(type, size, path, blockSize, thin, queueDepth, writeCache, direct, removable, writeProtect,
                    physicalBlockSize, sanitizeRate, null, null, null, null, null, null, null);
        }
    }

    public record Target(String name, String alias, Chap auth, List<Lun> luns, List<Acl> acls) {
    }

    public record Lun(Integer lun, String backstore) {
    }

    public record Acl(String initiator, Chap auth, List<MappedLun> luns) {
    }

    /** {@code mapped_lun} is the LUN number the initiator sees; it defaults to {@code lun}. */
    public record MappedLun(Integer lun, @JsonProperty("mapped_lun") Integer mappedLun,
                            @JsonProperty("read_only") Boolean readOnly) {
    }
}
