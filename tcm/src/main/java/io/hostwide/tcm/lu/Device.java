package io.hostwide.tcm.lu;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.PeripheralDeviceType;
import io.hostwide.tcm.spi.Backstore;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One logical unit's storage and SCSI state (LIO's se_device): the backstore, attributes, mode pages, medium
 * state, identifiers, its reservations, ALUA target port groups and held copy results, and the I_T_L nexuses that
 * currently see it (for unit attentions and per-nexus state). Everything here is state of the logical unit
 * itself; how commands reach it (command table, I/O queue, task-set ordering) is the core's and lives there.
 */
public final class Device implements AutoCloseable {
    private final String name;
    private final Backstore backstore;
    private final DeviceAttributes attributes;
    private final ModePages modePages;
    private final RangeLock rangeLock = new RangeLock();
    private final TargetPortGroup defaultPortGroup = new TargetPortGroup(0, "default_tg_pt_gp");
    private final List<SessionLun> attached = new CopyOnWriteArrayList<>();
    private final DeviceStats stats = new DeviceStats();
    private final String unitSerial;
    private final long naa;
    private final PersistentReservations reservations;
    private final AluaGroups alua;
    private final CopyResults copyResults = new CopyResults();
    private volatile boolean mediumLoaded = true;
    private volatile BackgroundOperation operation;
    private volatile boolean sanitizeFailed;
    private volatile long blockCount;

    private static final VarHandle OPERATION;

    static {
        try {
            OPERATION = MethodHandles.lookup().findVarHandle(Device.class, "operation",
                    BackgroundOperation.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public Device(String name, Backstore backstore, DeviceAttributes attributes) {
        this.name = name;
        this.backstore = backstore;
        this.attributes = attributes;
        this.modePages = new ModePages(attributes.writeCacheEnabled());
        this.unitSerial = attributes.unitSerial() != null ? attributes.unitSerial() : serialFrom(name);
        this.naa = naaFrom(this.unitSerial);
        this.blockCount = backstore.blockCount();
        this.reservations = new PersistentReservations(this);
        this.alua = new AluaGroups(this);
        backstore.onCapacityChange(this::refreshCapacity);
    }

    /** Persistent and SPC-2 reservations of this LU (SPC-4 §5.13). */
    public PersistentReservations reservations() { return reservations; }

    /** The ALUA target port groups of this LU and their transitions (SPC-4 §5.15). */
    public AluaGroups alua() { return alua; }

    /** EXTENDED COPY results held for RECEIVE COPY RESULTS (SPC-4 §6.18). */
    public CopyResults copyResults() { return copyResults; }

    /** 32 hex digits from a stable hash of the name (LIO derives the serial from a UUID the same way). */
    private static String serialFrom(String name) {
        return serialOf(name);
    }

    /**
     * The unit serial number derived from {@code identity} (32 hex digits from a stable hash): a storage shared by
     * several gateways passes its own identity (RBD: pool and image id), so every gateway reports the same serial
     * and NAA designator and multipath sees one device.
     */
    public static String serialOf(String identity) {
        String name = identity;
        long h1 = 1125899906842597L, h2 = 0x9E3779B97F4A7C15L;
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            h1 = 31 * h1 + b;
            h2 = Long.rotateLeft(h2 ^ b, 13) * 0x100000001B3L;
        }
        return String.format("%016x%016x", h1, h2);
    }

    /**
     * NAA IEEE Registered designator (SPC-4 §7.8.6.6.3): NAA 5h, a 24-bit OUI, 36 bits vendor specific. The OUI
     * 001405h is the one LIO uses for emulated devices; the vendor part comes from the serial.
     */
    private static long naaFrom(String serial) {
        long v = 0;
        for (byte b : serial.getBytes(StandardCharsets.US_ASCII)) {
            v = v * 1099511628211L + b;
        }
        return 0x5L << 60 | 0x001405L << 36 | (v & 0xF_FFFF_FFFFL);
    }

    public String name() { return name; }

    public Backstore backstore() { return backstore; }

    public DeviceAttributes attributes() { return attributes; }

    public ModePages modePages() { return modePages; }

    public RangeLock rangeLock() { return rangeLock; }

    /** Commands, bytes and latencies of this device, counted by the core at completion. */
    public DeviceStats stats() { return stats; }

    public TargetPortGroup defaultPortGroup() { return defaultPortGroup; }

    public int deviceType() { return PeripheralDeviceType.DIRECT_ACCESS_BLOCK; }

    public int blockSize() { return backstore.blockSize(); }

    /** Thin provisioning is in effect: asked for by the attributes and possible on the backstore (SBC-4 §4.7.3.3). */
    public boolean thinProvisioned() { return attributes.thinProvisioning() && backstore.supportsUnmap(); }

    /** Capacity in blocks as the device reports it (READ CAPACITY returns this minus one). */
    public long blockCount() { return blockCount; }

    /** Default transfer limit when the attribute is 0: 8 MiB. */
    public static final int DEFAULT_MAX_TRANSFER_BYTES = 8 << 20;

    /**
     * The MAXIMUM TRANSFER LENGTH in force, in blocks: the attribute, or 8 MiB worth of blocks when it is 0, never
     * more than fits one Java buffer (a command's data is one {@link java.nio.ByteBuffer}).
     */
    public long maxTransferBlocks() {
        long a = attributes.maxTransferLength();
        long cap = (Integer.MAX_VALUE / 2) / blockSize();
        return a > 0 ? Math.min(a, cap) : DEFAULT_MAX_TRANSFER_BYTES / blockSize();
    }

    /**
     * Default OPTIMAL TRANSFER LENGTH: 1 MiB. Linux sd uses a valid OPTIMAL TRANSFER LENGTH as the largest request
     * it builds ({@code sd_revalidate_disk}: {@code max_sectors}), so this is the command size kernel initiators
     * send: large enough that per-command costs (CDB, R2T, status, a backstore call) are spread over 1 MiB, as Linux
     * itself caps a disk that reports nothing at about that size ({@code BLK_DEF_MAX_SECTORS}, 1280 KiB); not the
     * 8 MiB maximum, so a session's queue of such commands holds a bounded amount of buffer memory.
     */
    public static final int DEFAULT_OPTIMAL_TRANSFER_BYTES = 1 << 20;

    /**
     * The OPTIMAL TRANSFER LENGTH reported, in blocks (SBC-4 §6.6.4): the attribute, or
     * {@link #DEFAULT_OPTIMAL_TRANSFER_BYTES} worth of blocks when it is derived; never above
     * {@link #maxTransferBlocks()} and always whole OPTIMAL TRANSFER LENGTH GRANULARITY units (Linux's
     * {@code sd_validate_opt_xfer_size} ignores a value beyond the maximum or not a multiple of the physical block).
     * 0 means none is reported.
     */
    public long optimalTransferBlocks() {
        long a = attributes.optimalTransferLength();
        long want = a == DeviceAttributes.OPTIMAL_TRANSFER_LENGTH_DERIVED ? DEFAULT_OPTIMAL_TRANSFER_BYTES / blockSize() : a;
        long v = Math.min(want, maxTransferBlocks());
        return v - v % attributes.logicalBlocksPerPhysicalBlock();
    }

    public String unitSerial() { return unitSerial; }

    public long naa() { return naa; }

    /** Whether writes must fail with DATA PROTECT: attribute, or the control page SWP bit. */
    public boolean writeProtected() { return attributes.writeProtect() || modePages.softwareWriteProtect(); }

    /** Whether a (removable) medium is loaded; non-removable devices always have theirs. */
    public boolean mediumLoaded() { return mediumLoaded; }

    /**
     * The operation that makes the LU not ready (a sanitize in progress), or null. A volatile read on every
     * command: it pairs with the volatile CAS of {@link #startOperation} and the volatile write of
     * {@link #endOperation}, so a command seen after either sees the operation's state.
     */
    public BackgroundOperation operation() { return operation; }

    /** Installs {@code op} when no operation runs; false when one does (SBC-4 §4.11: one sanitize at a time). */
    public boolean startOperation(BackgroundOperation op) { return OPERATION.compareAndSet(this, null, op); }

    /**
     * SBC-4 §4.11.4: a sanitize operation failed; until a SANITIZE completes or EXIT FAILURE MODE is requested,
     * medium access commands end MEDIUM ERROR / SANITIZE COMMAND FAILED (31h/03h).
     */
    public boolean sanitizeFailed() { return sanitizeFailed; }

    public void sanitizeFailed(boolean failed) { this.sanitizeFailed = failed; }

    /** Ends {@code op}: the LU is ready again. Everything the operation wrote happens-before this volatile write. */
    public void endOperation(BackgroundOperation op) { OPERATION.compareAndSet(this, op, null); }

    public void mediumLoaded(boolean loaded) { this.mediumLoaded = loaded; }

    /** Whether any I_T nexus has prevented medium removal (SBC-4 §5.11). */
    public boolean mediumRemovalPrevented() {
        for (SessionLun l : attached) {
            if (l.preventMediumRemoval()) {
                return true;
            }
        }
        return false;
    }

    /** Clears every nexus's prevention (LUN reset, power on; SPC-4 §6.13). */
    public void clearMediumRemovalPrevention() {
        for (SessionLun l : attached) {
            l.preventMediumRemoval(false);
        }
    }

    /** Re-reads the backstore's capacity; on a change every nexus gets CAPACITY DATA HAS CHANGED. */
    public void refreshCapacity() {
        long n = backstore.blockCount();
        if (n != blockCount) {
            blockCount = n;
            broadcastUnitAttention(Asc.CAPACITY_DATA_HAS_CHANGED, null);
        }
    }

    /** Queues a unit attention for every I_T nexus that sees this device, except {@code except}. */
    public void broadcastUnitAttention(int ascAscq, SessionLun except) {
        for (SessionLun l : attached) {
            if (l != except) {
                l.unitAttentions().add(ascAscq);
            }
        }
    }

    /** The I_T nexuses that currently see this device. */
    public List<SessionLun> nexuses() { return List.copyOf(attached); }

    public void attach(SessionLun l) { attached.add(l); }

    public void detach(SessionLun l) { attached.remove(l); }

    /** Closes the backstore (the core has drained the commands that were using it). */
    @Override
    public void close() throws IOException {
        reservations.close();
        backstore.close();
    }

    @Override
    public String toString() { return "Device[" + name + " " + backstore.describe() + "]"; }
}
