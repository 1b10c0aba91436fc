package io.hostwide.loop;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.lu.DeviceAttributes;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Large bios through sd on a device whose VPD B0h MAXIMUM TRANSFER LENGTH is 256 KiB: split, sent, reassembled. */
class SplitThroughLoopTest {
    private static final int BS = 4096;
    private static final int MIB = 1 << 20;

    private static SdRig rig() {
        return new SdRig(new DeviceAttributes().maxTransferLength(64).optimalTransferLength(0), 16L * MIB, BS);
    }

    private static List<byte[]> ofOpcode(SdRig r, int opcode) {
        return r.lld.cdbs().stream().filter(c -> (c[0] & 0xFF) == opcode).toList();
    }

    @Test
    void aFourMebibyteWriteBecomesSixteenWritesAndReadsBackIntact() throws Exception {
        try (SdRig r = rig()) {
            assertThat(r.disk.maxTransferBytes()).isEqualTo(256 * 1024);
            assertThat(r.disk.queue().maxHwSectorsKb()).isEqualTo(256);
            SubmitHandle h = r.disk.openHandle();
            ByteBuffer out = ByteBuffer.allocate(4 * MIB);
            for (int i = 0; i < out.capacity(); i += 8) {
                out.putLong(i, 0x5EED_0000_0000_0000L | i);
            }
            r.lld.clear();
            assertThat(Io.sync(h, ReqOp.WRITE, MIB, 4 * MIB, out)).isEqualTo(BlkStatus.OK);
            List<byte[]> writes = ofOpcode(r, ScsiOpcode.WRITE_10);
            assertThat(writes).hasSize(16);
            for (int i = 0; i < 16; i++) {
                assertThat(BigEndian.u32(writes.get(i), 2)).as("LBA of piece %d", i).isEqualTo(MIB / BS + i * 64L);
                assertThat(BigEndian.u16(writes.get(i), 7)).isEqualTo(64);
            }
            ByteBuffer in = ByteBuffer.allocate(4 * MIB);
            assertThat(Io.sync(h, ReqOp.READ, MIB, 4 * MIB, in)).isEqualTo(BlkStatus.OK);
            assertThat(ofOpcode(r, ScsiOpcode.READ_10)).hasSize(16);
            assertThat(in.array()).isEqualTo(out.array());
        }
    }

    @Test
    void aFailedPieceFailsTheBioExactlyOnce() throws Exception {
        try (SdRig r = rig()) {
            AtomicInteger writes = new AtomicInteger();
            r.lld.failKey = SenseKey.MEDIUM_ERROR;
            r.lld.failAsc = 0x0C00;   // WRITE ERROR
            r.lld.fail = c -> c.opcode() == ScsiOpcode.WRITE_10 && writes.incrementAndGet() == 5;
            Io.Batch b = new Io.Batch();
            b.submit(r.disk.openHandle(), ReqOp.WRITE, 0, 4 * MIB, ByteBuffer.allocate(4 * MIB), 9, 1);
            b.await(60_000);
            assertThat(b.eachOnce(1)).isTrue();
            assertThat(b.status.get(9L)).isEqualTo(BlkStatus.IOERR);
            assertThat(writes.get()).as("every piece was sent; one failed").isEqualTo(16);
        }
    }
}
