package io.hostwide.tcm.backstore;

import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.tcm.Harness;
import io.hostwide.tcm.TestFabric;
import io.hostwide.tcm.lu.DeviceAttributes;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The block backstore under the command set, with raw CDBs on a loop device: WRITE, SYNCHRONIZE CACHE, UNMAP (a
 * BLKDISCARD: the loop driver punches its file, so the blocks read back as zeros) and what the Logical Block
 * Provisioning VPD page says (LBPU = 1, LBPRZ = 0: Linux does not promise zeros after a discard in general).
 */
class BlockBackstoreScsiTest {
    private static final int BS = 512;

    @Test
    void writeSynchronizeCacheUnmapAndTheProvisioningPage(@TempDir Path dir) throws Exception {
        assumeTrue(BlockBackstore.NativeLoader.unavailable() == null, "BLKDISCARD needs Java 22+");
        try (LoopDevice loop = LoopDevice.attach(dir, 16L << 20, BS);
             Harness h = new Harness(new DeviceAttributes().thinProvisioning(true),
                     new BlockBackstore(loop.device, BlockBackstore.Options.DEFAULT), false)) {
            int blocks = 256;
            byte[] data = Harness.pattern(blocks * BS, 3);
            assertThat(h.out(Harness.write10(1000, blocks), data).status()).isEqualTo(ScsiStatus.GOOD);
            // SBC-4 §5.26 SYNCHRONIZE CACHE (10), whole medium
            assertThat(h.none(Harness.cdb(0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
            TestFabric.Result back = h.in(Harness.read10(1000, blocks), blocks * BS);
            assertThat(back.data()).isEqualTo(data);

            // SBC-4 §5.31 UNMAP: header (data length 22, descriptor data length 16), one descriptor
            byte[] list = new byte[24];
            list[1] = 22;
            list[3] = 16;
            long lba = 1000;
            for (int i = 0; i < 8; i++) {
                list[8 + i] = (byte) (lba >>> (56 - 8 * i));
            }
            list[16 + 2] = (byte) (blocks >>> 8);
            list[16 + 3] = (byte) blocks;
            TestFabric.Result unmap = h.out(Harness.cdb(0x42, 0, 0, 0, 0, 0, 0, 0, 24, 0), list);
            assertThat(unmap.status()).as("UNMAP sense %s", Arrays.toString(unmap.sense())).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(1000, blocks), blocks * BS).data()).isEqualTo(new byte[blocks * BS]);

            // SPC-4 INQUIRY EVPD B2h, SBC-4 §6.6.4: byte 5 LBPU(7) ... LBPRZ(4..2)
            TestFabric.Result lbp = h.in(Harness.cdb(0x12, 1, 0xb2, 0, 64, 0), 64);
            assertThat(lbp.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(lbp.data()[5] & 0x80).as("LBPU").isEqualTo(0x80);
            assertThat((lbp.data()[5] >> 2) & 7).as("LBPRZ").isZero();
        }
    }
}
