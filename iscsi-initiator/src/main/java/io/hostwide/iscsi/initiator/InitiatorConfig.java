package io.hostwide.iscsi.initiator;

/**
 * What one initiator session asks for: the portal and target, credentials, and the operational keys it offers
 * (RFC 7143 §13) with initiator defaults that favour throughput: ImmediateData=Yes, InitialR2T=No,
 * MaxRecvDataSegmentLength 256 KiB, FirstBurstLength 256 KiB, MaxBurstLength 1 MiB, digests off. Mutable until
 * handed to {@link IscsiHba} or {@link InitiatorSession}; {@link #validate()} names a bad field.
 */
public final class InitiatorConfig {

    IscsiUrl url;
    String initiatorName = "iqn.2026-12.io.hostwide:initiator";
    /**
     * ISID type 10b ("random", RFC 7143 §11.12.5): a random B/C per process and a counter in the qualifier, so two
     * sessions of this process to one target never reinstate each other, while each session's relogins reuse its own
     * ISID and so reinstate it (§6.3.5).
     */
    long isid = nextIsid();
    ChapCredentials chap;
    ChapCredentials mutualChap;
    int connections = 2;
    boolean headerDigest;
    boolean dataDigest;
    boolean immediateData = true;
    boolean initialR2t;
    int maxRecvDataSegmentLength = 262_144;
    int firstBurstLength = 262_144;
    int maxBurstLength = 1_048_576;
    int cmdPerLun = 0;
    int cmdsMax = 0;
    long loginTimeoutMillis = 10_000;
    long tmfTimeoutMillis = 10_000;
    long recoveryTimeoutMillis = 120_000;
    long ioTimeoutMillis = 30_000;
    long noopOutIntervalMillis = 5_000;
    long noopOutTimeoutMillis = 5_000;

    private static final long ISID_BASE = 0x8000_0000_0000L
            | (new java.security.SecureRandom().nextInt(1 << 24) & 0xff_ffffL) << 16;
    private static final java.util.concurrent.atomic.AtomicInteger ISID_QUALIFIER =
            new java.util.concurrent.atomic.AtomicInteger();

    private static long nextIsid() {
        return ISID_BASE | (ISID_QUALIFIER.incrementAndGet() & 0xffff);
    }

    public InitiatorConfig(IscsiUrl url) {
        this.url = url;
    }

    public InitiatorConfig initiatorName(String v) { this.initiatorName = v; return this; }

    public InitiatorConfig isid(long v) { this.isid = v; return this; }

    /** One-way CHAP: the name and secret we prove to the target. */
    public InitiatorConfig chap(ChapCredentials v) { this.chap = v; return this; }

    /** Mutual CHAP: the name and secret the target must prove to us (needs {@link #chap}). */
    public InitiatorConfig mutualChap(ChapCredentials v) { this.mutualChap = v; return this; }

    /** Connections wanted (MaxConnections offered, RFC 7143 §13.2); the session uses what the target grants. */
    public InitiatorConfig connections(int v) { this.connections = v; return this; }

    public InitiatorConfig headerDigest(boolean v) { this.headerDigest = v; return this; }

    public InitiatorConfig dataDigest(boolean v) { this.dataDigest = v; return this; }

    public InitiatorConfig immediateData(boolean v) { this.immediateData = v; return this; }

    public InitiatorConfig initialR2t(boolean v) { this.initialR2t = v; return this; }

    public InitiatorConfig maxRecvDataSegmentLength(int v) { this.maxRecvDataSegmentLength = v; return this; }

    public InitiatorConfig firstBurstLength(int v) { this.firstBurstLength = v; return this; }

    public InitiatorConfig maxBurstLength(int v) { this.maxBurstLength = v; return this; }

    /** Per-LUN queue depth; 0 = the session's {@link #cmdsMax}. */
    public InitiatorConfig cmdPerLun(int v) { this.cmdPerLun = v; return this; }

    /**
     * The session's can_queue (open-iscsi's {@code node.session.cmds_max}); 0 = the larger of 128 (open-iscsi's
     * default) and the CmdSN window granted at login. A target may open its window after login, so the window
     * at login is no limit; a command that finds the window closed is TARGET_BUSY.
     */
    public InitiatorConfig cmdsMax(int v) { this.cmdsMax = v; return this; }

    /** {@link #cmdsMax} as the host's can_queue for a session whose window at login was {@code window}. */
    int canQueue(int window) {
        int v = cmdsMax > 0 ? cmdsMax : Math.max(DEFAULT_CMDS_MAX, window);
        return Math.max(1, Math.min(4096, v));
    }

    static final int DEFAULT_CMDS_MAX = 128;

    public InitiatorConfig loginTimeoutMillis(long v) { this.loginTimeoutMillis = v; return this; }

    /** How long error handling waits for a task management response before escalating. */
    public InitiatorConfig tmfTimeoutMillis(long v) { this.tmfTimeoutMillis = v; return this; }

    /** How long a failed session keeps retrying the login before queued I/O fails (Linux replacement_timeout). */
    public InitiatorConfig recoveryTimeoutMillis(long v) { this.recoveryTimeoutMillis = v; return this; }

    /** The midlayer's command timeout. */
    public InitiatorConfig ioTimeoutMillis(long v) { this.ioTimeoutMillis = v; return this; }

    /**
     * NOP-Out pings on a connection that received nothing for this long (RFC 7143 §11.18; Linux's
     * noop_out_interval); 0 turns them off.
     */
    public InitiatorConfig noopOutIntervalMillis(long v) { this.noopOutIntervalMillis = v; return this; }

    /** An unanswered ping fails the connection after this long (Linux's noop_out_timeout). */
    public InitiatorConfig noopOutTimeoutMillis(long v) { this.noopOutTimeoutMillis = v; return this; }

    public IscsiUrl url() { return url; }

    /** Every knob of this config for another URL (a target found by discovery), with a fresh ISID. */
    InitiatorConfig copyFor(IscsiUrl other) {
        InitiatorConfig c = new InitiatorConfig(other);
        c.initiatorName = initiatorName;
        c.chap = chap;
        c.mutualChap = mutualChap;
        c.connections = connections;
        c.headerDigest = headerDigest;
        c.dataDigest = dataDigest;
        c.immediateData = immediateData;
        c.initialR2t = initialR2t;
        c.maxRecvDataSegmentLength = maxRecvDataSegmentLength;
        c.firstBurstLength = firstBurstLength;
        c.maxBurstLength = maxBurstLength;
        c.cmdPerLun = cmdPerLun;
        c.cmdsMax = cmdsMax;
        c.loginTimeoutMillis = loginTimeoutMillis;
        c.tmfTimeoutMillis = tmfTimeoutMillis;
        c.recoveryTimeoutMillis = recoveryTimeoutMillis;
        c.ioTimeoutMillis = ioTimeoutMillis;
        c.noopOutIntervalMillis = noopOutIntervalMillis;
        c.noopOutTimeoutMillis = noopOutTimeoutMillis;
        return c;
    }

    public InitiatorConfig validate() {
        if (url == null) {
            throw new IllegalArgumentException("url is required (iscsi://HOST[:PORT]/IQN/LUN)");
        }
        if (initiatorName == null || initiatorName.isEmpty() || initiatorName.length() > 223) {
            throw new IllegalArgumentException("initiator name must be 1..223 bytes (RFC 7143 §4.2.7.1)");
        }
        if (mutualChap != null && chap == null) {
            throw new IllegalArgumentException("mutual CHAP (target_user/target_secret) needs user/secret too");
        }
        if (mutualChap != null && chap.sameSecret(mutualChap)) {
            throw new IllegalArgumentException("mutual CHAP secrets must differ between the two directions "
                    + "(RFC 7143 §12.1.3)");
        }
        if (connections < 1 || connections > 64) {
            throw new IllegalArgumentException("connections must be 1..64, got " + connections);
        }
        // RFC 7143 §13.12-§13.14: 512 .. 2^24-1.
        range("max_recv_data_segment_length", maxRecvDataSegmentLength, 512, 16_777_215);
        range("first_burst_length", firstBurstLength, 512, 16_777_215);
        range("max_burst_length", maxBurstLength, 512, 16_777_215);
        if (firstBurstLength > maxBurstLength) {
            throw new IllegalArgumentException("first_burst_length must not exceed max_burst_length (RFC 7143 §13.14)");
        }
        if (cmdPerLun < 0 || cmdPerLun > 4096) {
            throw new IllegalArgumentException("cmd_per_lun must be 0..4096, got " + cmdPerLun);
        }
        if (cmdsMax < 0 || cmdsMax > 4096) {
            throw new IllegalArgumentException("cmds_max must be 0..4096, got " + cmdsMax);
        }
        if (noopOutIntervalMillis < 0 || noopOutTimeoutMillis < 1) {
            throw new IllegalArgumentException("noop_out_interval must be >= 0 and noop_out_timeout >= 1 ms");
        }
        if (loginTimeoutMillis < 1 || tmfTimeoutMillis < 1 || recoveryTimeoutMillis < 0 || ioTimeoutMillis < 1) {
            throw new IllegalArgumentException("timeouts must be positive");
        }
        return this;
    }

    private static void range(String name, int v, int min, int max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(name + " must be " + min + ".." + max + ", got " + v);
        }
    }
}
