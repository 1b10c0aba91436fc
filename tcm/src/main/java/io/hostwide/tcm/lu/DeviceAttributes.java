package io.hostwide.tcm.lu;

/**
 * Device attributes (LIO's dev_attrib, digest §6.10): identity, emulation switches, provisioning limits and
 * queueing. Plain mutable configuration, set before the device is exported; fields read on the I/O path are
 * volatile so that a later change is seen by every thread.
 */
public final class DeviceAttributes {
    private String vendor = "HOSTWIDE";
    private String product = "hostwide target";
    private String revision = "0001";
    private String unitSerial;
    private volatile boolean writeCacheEnabled = true;
    private volatile boolean emulateFuaWrite = true;
    private volatile boolean emulateDpo = true;
    private volatile boolean writeProtect;
    private volatile boolean removable;
    private volatile boolean thinProvisioning;
    private volatile int provisioningCommands = PROVISIONING_ALL;
    private boolean emulateCaw = true;
    private boolean emulateWriteAtomic = true;
    private boolean emulateSanitize = true;
    private volatile long sanitizeRate;
    private boolean nonRotational = true;
    private long maxUnmapLbaCount = 0xFFFF_FFFFL; // no limit (libiscsi: a finite value must be <= 1M)
    private long maxUnmapBlockDescriptorCount = 256;
    private volatile int logicalBlocksPerPhysicalBlockExponent;
    private long unmapGranularity = 1;
    private long unmapGranularityAlignment = 0;
    // SBC-4 §6.6.4 MAXIMUM WRITE SAME LENGTH; 65535 as LIO (0 = no limit would promise single commands far
    // beyond the 8 MiB transfer limit, e.g. libiscsi WriteSame16.Unmap then writes 32 MiB in one WRITE(16))
    private long maxWriteSameLength = 0xFFFF;
    private long maxTransferLength = 0; // 0: 8 MiB worth of blocks (Device.maxTransferBlocks)
    // -1: derived from the block size and the transfer limit (Device.optimalTransferBlocks); a fixed 256 blocks was
    // 128 KiB on a 512-byte-block LUN, which Linux sd then took as its request size cap (issue 13)
    private long optimalTransferLength = OPTIMAL_TRANSFER_LENGTH_DERIVED;
    private int maxCompareAndWriteLength = 255; // SBC-4 §6.6.4: a one-byte field, as is NUMBER OF LOGICAL BLOCKS
    private long maxAtomicTransferLength = 256;
    private long atomicAlignment = 1;
    private long atomicTransferLengthGranularity = 1;
    private int queueDepth = 128;
    private int ioThreads = 4;

    public String vendor() { return vendor; }
    public DeviceAttributes vendor(String v) { this.vendor = v; return this; }
    public String product() { return product; }
    public DeviceAttributes product(String v) { this.product = v; return this; }
    public String revision() { return revision; }
    public DeviceAttributes revision(String v) { this.revision = v; return this; }
    /** VPD 80h unit serial number; derived from the device name when unset. */
    public String unitSerial() { return unitSerial; }
    public DeviceAttributes unitSerial(String v) { this.unitSerial = v; return this; }

    /** Caching mode page WCE (LIO emulate_write_cache); when off every write is made durable before GOOD. */
    public boolean writeCacheEnabled() { return writeCacheEnabled; }
    public DeviceAttributes writeCacheEnabled(boolean v) { this.writeCacheEnabled = v; return this; }
    public boolean emulateFuaWrite() { return emulateFuaWrite; }
    public DeviceAttributes emulateFuaWrite(boolean v) { this.emulateFuaWrite = v; return this; }
    public boolean emulateDpo() { return emulateDpo; }
    public DeviceAttributes emulateDpo(boolean v) { this.emulateDpo = v; return this; }
    /** Software write protect of the whole device: writes get DATA PROTECT / WRITE PROTECTED. */
    public boolean writeProtect() { return writeProtect; }
    public DeviceAttributes writeProtect(boolean v) { this.writeProtect = v; return this; }
    /** Removable medium (INQUIRY RMB): load/eject with START STOP UNIT, PREVENT ALLOW MEDIUM REMOVAL. */
    public boolean removable() { return removable; }
    public DeviceAttributes removable(boolean v) { this.removable = v; return this; }
    /** Thin provisioning: LBPME in READ CAPACITY(16), UNMAP and WRITE SAME unmap (needs a backstore that unmaps). */
    public boolean thinProvisioning() { return thinProvisioning; }
    public DeviceAttributes thinProvisioning(boolean v) { this.thinProvisioning = v; return this; }

    /** SBC-4 §6.6.5 LBPU | LBPWS | LBPWS10 (byte 5 bits 7..5 of the Logical Block Provisioning VPD page). */
    public static final int PROVISIONING_ALL = 0xE0;

    /**
     * Which unmap commands a thin device advertises in the Logical Block Provisioning VPD page (LBPU 0x80, LBPWS
     * 0x40, LBPWS10 0x20; default all three), as scsi_debug's lbpu/lbpws/lbpws10. Advertising only: the commands
     * themselves are accepted either way, as scsi_debug does.
     */
    public int provisioningCommands() { return provisioningCommands; }
    public DeviceAttributes provisioningCommands(int bits) {
        if (bits == 0 || (bits & ~PROVISIONING_ALL) != 0) {
            throw new IllegalArgumentException("provisioning commands 0x" + Integer.toHexString(bits)
                    + ": a non-empty set of LBPU 0x80, LBPWS 0x40, LBPWS10 0x20");
        }
        this.provisioningCommands = bits;
        return this;
    }
    public boolean emulateCaw() { return emulateCaw; }
    public DeviceAttributes emulateCaw(boolean v) { this.emulateCaw = v; return this; }
    public boolean emulateWriteAtomic() { return emulateWriteAtomic; }
    public DeviceAttributes emulateWriteAtomic(boolean v) { this.emulateWriteAtomic = v; return this; }
    public boolean emulateSanitize() { return emulateSanitize; }
    public DeviceAttributes emulateSanitize(boolean v) { this.emulateSanitize = v; return this; }
    /**
     * Bytes per second a SANITIZE OVERWRITE writes (a medium's bandwidth, for emulated devices whose sanitize should
     * take as long as a disk's would); 0 (default) = as fast as the backstore goes.
     */
    public long sanitizeRate() { return sanitizeRate; }
    public DeviceAttributes sanitizeRate(long bytesPerSecond) {
        if (bytesPerSecond < 0) {
            throw new IllegalArgumentException("sanitize rate " + bytesPerSecond + " is negative");
        }
        this.sanitizeRate = bytesPerSecond;
        return this;
    }
    public boolean nonRotational() { return nonRotational; }
    public DeviceAttributes nonRotational(boolean v) { this.nonRotational = v; return this; }
    public long maxUnmapLbaCount() { return maxUnmapLbaCount; }
    public DeviceAttributes maxUnmapLbaCount(long v) { this.maxUnmapLbaCount = v; return this; }
    public long maxUnmapBlockDescriptorCount() { return maxUnmapBlockDescriptorCount; }
    public DeviceAttributes maxUnmapBlockDescriptorCount(long v) { this.maxUnmapBlockDescriptorCount = v; return this; }
    /**
     * SBC-4 §6.6.3 LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT (0..15): 2^n logical blocks share one physical block,
     * the lowest aligned LBA being 0. READ CAPACITY(16) reports it; the Block Limits VPD page's OPTIMAL TRANSFER
     * LENGTH GRANULARITY and OPTIMAL UNMAP GRANULARITY are at least one physical block.
     */
    public int logicalBlocksPerPhysicalBlockExponent() { return logicalBlocksPerPhysicalBlockExponent; }
    public DeviceAttributes logicalBlocksPerPhysicalBlockExponent(int v) {
        if (v < 0 || v > 15) {
            throw new IllegalArgumentException("logical blocks per physical block exponent " + v + " is not 0..15");
        }
        this.logicalBlocksPerPhysicalBlockExponent = v;
        return this;
    }
    /** Logical blocks per physical block (2^exponent). */
    public int logicalBlocksPerPhysicalBlock() { return 1 << logicalBlocksPerPhysicalBlockExponent; }
    /** Blocks reported as OPTIMAL UNMAP GRANULARITY: the configured value, at least one physical block. */
    public long effectiveUnmapGranularity() { return Math.max(unmapGranularity, logicalBlocksPerPhysicalBlock()); }
    /** The configured OPTIMAL UNMAP GRANULARITY (see {@link #effectiveUnmapGranularity()}). */
    public long unmapGranularity() { return unmapGranularity; }
    public DeviceAttributes unmapGranularity(long v) { this.unmapGranularity = v; return this; }
    public long unmapGranularityAlignment() { return unmapGranularityAlignment; }
    public DeviceAttributes unmapGranularityAlignment(long v) { this.unmapGranularityAlignment = v; return this; }
    public long maxWriteSameLength() { return maxWriteSameLength; }
    public DeviceAttributes maxWriteSameLength(long v) { this.maxWriteSameLength = v; return this; }
    /**
     * Block limits VPD MAXIMUM TRANSFER LENGTH in blocks; longer transfers get INVALID FIELD IN CDB. 0 (default)
     * means 8 MiB worth of blocks; see {@link Device#maxTransferBlocks()} for the effective value.
     */
    public long maxTransferLength() { return maxTransferLength; }
    public DeviceAttributes maxTransferLength(long v) { this.maxTransferLength = v; return this; }
    /** {@link #optimalTransferLength(long)}: report {@link Device#DEFAULT_OPTIMAL_TRANSFER_BYTES} worth of blocks. */
    public static final long OPTIMAL_TRANSFER_LENGTH_DERIVED = -1;
    /** The configured OPTIMAL TRANSFER LENGTH; see {@link Device#optimalTransferBlocks()} for the value reported. */
    public long optimalTransferLength() { return optimalTransferLength; }
    /**
     * Block limits VPD OPTIMAL TRANSFER LENGTH in blocks: {@link #OPTIMAL_TRANSFER_LENGTH_DERIVED} (default) for
     * {@link Device#DEFAULT_OPTIMAL_TRANSFER_BYTES} worth of blocks, 0 to report none, else that many blocks (never
     * reported above the maximum transfer length, and rounded down to whole physical blocks).
     */
    public DeviceAttributes optimalTransferLength(long v) {
        if (v < OPTIMAL_TRANSFER_LENGTH_DERIVED || v > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("optimal transfer length " + v + " is not -1 (derived) or 0..2^32-1 blocks");
        }
        this.optimalTransferLength = v;
        return this;
    }
    /** MAXIMUM COMPARE AND WRITE LENGTH in blocks (1..255). */
    public int maxCompareAndWriteLength() { return maxCompareAndWriteLength; }
    public DeviceAttributes maxCompareAndWriteLength(int v) { this.maxCompareAndWriteLength = Math.min(255, Math.max(1, v)); return this; }
    public long maxAtomicTransferLength() { return maxAtomicTransferLength; }
    public DeviceAttributes maxAtomicTransferLength(long v) { this.maxAtomicTransferLength = v; return this; }
    public long atomicAlignment() { return atomicAlignment; }
    public DeviceAttributes atomicAlignment(long v) { this.atomicAlignment = v; return this; }
    public long atomicTransferLengthGranularity() { return atomicTransferLengthGranularity; }
    public DeviceAttributes atomicTransferLengthGranularity(long v) { this.atomicTransferLengthGranularity = v; return this; }
    /** Commands a blocking backstore may have in flight on this device (its I/O queue bound). */
    public int queueDepth() { return queueDepth; }
    public DeviceAttributes queueDepth(int v) { this.queueDepth = Math.max(1, v); return this; }
    /** Threads serving a blocking backstore's I/O queue. */
    public int ioThreads() { return ioThreads; }
    public DeviceAttributes ioThreads(int v) { this.ioThreads = Math.max(1, v); return this; }
}
