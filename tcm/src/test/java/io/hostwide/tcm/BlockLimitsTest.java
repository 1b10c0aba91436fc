package io.hostwide.tcm;

import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.VpdPage.BlockLimits;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.Device;
import io.hostwide.tcm.lu.DeviceAttributes;
import org.junit.jupiter.api.Test;

import static io.hostwide.tcm.Harness.cdb;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * SBC-4 §6.6.4 Block Limits VPD: MAXIMUM and OPTIMAL TRANSFER LENGTH and the granularity describe the LUN in its own
 * blocks. Guards issue 13: a fixed OPTIMAL TRANSFER LENGTH of 256 blocks was 128 KiB on a 512-byte-block LUN, and
 * Linux sd (sd_revalidate_disk) uses a valid optimal length as max_sectors, so every 1 MiB I/O became eight commands.
 */
class BlockLimitsTest {
    private static final long MIB = 1 << 20;

    private static byte[] b0(Harness h) {
        return h.in(cdb(0x12, 1, 0xB0, 0, 255, 0), 255).data();
    }

    @Test
    void defaultLimitsAreEightMebibytesMaximumAndOneMebibyteOptimalWhateverTheBlockSize() {
        for (int bs : new int[] {512, 4096}) {
            try (Harness h = new Harness(new DeviceAttributes(), new RamBackstore(64 * MIB, bs))) {
                byte[] d = b0(h);
                assertThat(BigEndian.u32(d, BlockLimits.MAXIMUM_TRANSFER_LENGTH)).as("bs %d", bs)
                        .isEqualTo(Device.DEFAULT_MAX_TRANSFER_BYTES / bs);
                assertThat(BigEndian.u32(d, BlockLimits.OPTIMAL_TRANSFER_LENGTH)).as("bs %d", bs)
                        .isEqualTo(MIB / bs);
                assertThat(BigEndian.u16(d, BlockLimits.OPTIMAL_TRANSFER_LENGTH_GRANULARITY)).isEqualTo(1);
            }
        }
    }

    /** What Linux's sd_validate_opt_xfer_size demands before it uses the optimal length as its request size. */
    @Test
    void optimalLengthIsOneLinuxAcceptsOnEveryDefaultLun() {
        for (int exp = 0; exp <= 3; exp++) {
            DeviceAttributes a = new DeviceAttributes().logicalBlocksPerPhysicalBlockExponent(exp);
            try (Harness h = new Harness(a, new RamBackstore(64 * MIB, 512))) {
                byte[] d = b0(h);
                long opt = BigEndian.u32(d, BlockLimits.OPTIMAL_TRANSFER_LENGTH);
                long max = BigEndian.u32(d, BlockLimits.MAXIMUM_TRANSFER_LENGTH);
                int gran = BigEndian.u16(d, BlockLimits.OPTIMAL_TRANSFER_LENGTH_GRANULARITY);
                assertThat(gran).isEqualTo(1 << exp);
                assertThat(opt).isPositive().isLessThanOrEqualTo(max).isLessThanOrEqualTo(0xFFFF); // SD_DEF_XFER_BLOCKS
                assertThat(opt * 512).isGreaterThanOrEqualTo(4096).isEqualTo(MIB);                // at least a page
                assertThat(opt % gran).isZero();                                                    // whole physical blocks
            }
        }
    }

    @Test
    void aConfiguredOptimalLengthIsNeverAboveTheMaximumAndIsWholePhysicalBlocks() {
        try (Harness h = new Harness(new DeviceAttributes().maxTransferLength(64).optimalTransferLength(4096))) {
            assertThat(BigEndian.u32(b0(h), BlockLimits.OPTIMAL_TRANSFER_LENGTH)).isEqualTo(64);
        }
        try (Harness h = new Harness(new DeviceAttributes().logicalBlocksPerPhysicalBlockExponent(3).optimalTransferLength(100))) {
            assertThat(BigEndian.u32(b0(h), BlockLimits.OPTIMAL_TRANSFER_LENGTH)).isEqualTo(96);
        }
        try (Harness h = new Harness(new DeviceAttributes().maxTransferLength(12).optimalTransferLength(200)
                .logicalBlocksPerPhysicalBlockExponent(3))) {
            byte[] d = b0(h);
            assertThat(BigEndian.u32(d, BlockLimits.MAXIMUM_TRANSFER_LENGTH)).isEqualTo(12);
            assertThat(BigEndian.u32(d, BlockLimits.OPTIMAL_TRANSFER_LENGTH)).isEqualTo(8);
        }
    }

    @Test
    void zeroReportsNoOptimalLength() {
        try (Harness h = new Harness(new DeviceAttributes().optimalTransferLength(0))) {
            assertThat(BigEndian.u32(b0(h), BlockLimits.OPTIMAL_TRANSFER_LENGTH)).isZero();
        }
    }

    @Test
    void anOptimalLengthOutsideTheFieldIsRefused() {
        assertThatThrownBy(() -> new DeviceAttributes().optimalTransferLength(-2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-2");
        assertThatThrownBy(() -> new DeviceAttributes().optimalTransferLength(1L << 32))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
