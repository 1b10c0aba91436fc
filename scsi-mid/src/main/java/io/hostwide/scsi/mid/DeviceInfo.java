package io.hostwide.scsi.mid;

/**
 * What scanning learned about a LUN (INQUIRY, READ CAPACITY, VPD B0h/B1h/B2h).
 *
 * @param maxTransferBlocks     VPD B0h MAXIMUM TRANSFER LENGTH (0 = not reported)
 * @param optimalTransferBlocks VPD B0h OPTIMAL TRANSFER LENGTH (0 = not reported)
 * @param maxUnmapBlocks        VPD B0h MAXIMUM UNMAP LBA COUNT
 * @param maxUnmapDescriptors   VPD B0h MAXIMUM UNMAP BLOCK DESCRIPTOR COUNT
 * @param unmapGranularity      VPD B0h OPTIMAL UNMAP GRANULARITY
 * @param maxWriteSameBlocks    VPD B0h MAXIMUM WRITE SAME LENGTH
 * @param lbpu                  VPD B2h LBPU: UNMAP deallocates
 * @param lbpws                 VPD B2h LBPWS: WRITE SAME(16) with UNMAP deallocates
 * @param rotationRate          VPD B1h MEDIUM ROTATION RATE (1 = non-rotating, 0 = not reported)
 * @param writeCache            caching mode page WCE (assumed on when unknown, so flushes are sent; the kernel
 *                              assumes write-through instead, which is the less safe guess)
 * @param dpoFua                MODE SENSE device-specific parameter DPOFUA: WRITE honours FUA (off when unknown)
 */
public record DeviceInfo(int peripheralType, String vendor, String product, String revision, boolean removable,
                         int logicalBlockSize, long capacityBlocks, boolean thinProvisioned,
                         long maxTransferBlocks, long optimalTransferBlocks, long maxUnmapBlocks,
                         long maxUnmapDescriptors, long unmapGranularity, long maxWriteSameBlocks,
                         boolean lbpu, boolean lbpws, int rotationRate, boolean writeCache, boolean dpoFua) {

    /** Without the DPOFUA bit (a device whose mode parameters were not read). */
    public DeviceInfo(int peripheralType, String vendor, String product, String revision, boolean removable,
                      int logicalBlockSize, long capacityBlocks, boolean thinProvisioned,
                      long maxTransferBlocks, long optimalTransferBlocks, long maxUnmapBlocks,
                      long maxUnmapDescriptors, long unmapGranularity, long maxWriteSameBlocks,
                      boolean lbpu, boolean lbpws, int rotationRate, boolean writeCache) {
        this(peripheralType, vendor, product, revision, removable, logicalBlockSize, capacityBlocks, thinProvisioned,
                maxTransferBlocks, optimalTransferBlocks, maxUnmapBlocks, maxUnmapDescriptors, unmapGranularity,
                maxWriteSameBlocks, lbpu, lbpws, rotationRate, writeCache, false);
    }

    public long capacityBytes() {
        return capacityBlocks * logicalBlockSize;
    }

    /** True when the device reported a non-rotating medium (VPD B1h rotation rate 1). */
    public boolean nonRotational() {
        return rotationRate == 1;
    }
}
