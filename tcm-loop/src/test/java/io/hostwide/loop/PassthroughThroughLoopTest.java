package io.hostwide.loop;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.IoCallback;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDevices;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.scsi.sd.SdCdb;
import io.hostwide.scsi.sd.SgIo;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.tcm.lu.DeviceAttributes;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Passthrough (REQ_OP_DRV_OUT) through blk and sd: VERIFY(16) with BYTCHK=1 compares at the target. */
class PassthroughThroughLoopTest {
    private static final int BS = 512;

    private static BlkStatus run(SubmitHandle h, SgIo io, ByteBuffer data) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        BlkStatus[] st = new BlkStatus[1];
        AtomicInteger calls = new AtomicInteger();
        IoCallback cb = (ud, s) -> {
            st[0] = s;
            calls.incrementAndGet();
            done.countDown();
        };
        h.passthrough(ReqOp.DRV_OUT, io, data, data.remaining(), cb, 0);
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(calls.get()).isEqualTo(1);
        return st[0];
    }

    @Test
    void verifyWithBytchkPassesOnEqualDataAndReportsTheFirstDifferingByte() throws Exception {
        try (SdRig r = new SdRig(new DeviceAttributes(), 8 << 20, BS)) {
            SubmitHandle h = r.disk.openHandle();
            ByteBuffer data = ByteBuffer.allocate(64 * 1024);
            for (int i = 0; i < data.capacity(); i++) {
                data.put(i, (byte) (i * 31 + 7));
            }
            assertThat(Io.sync(h, ReqOp.WRITE, 100 * BS, data.capacity(), data)).isEqualTo(BlkStatus.OK);
            byte[] c = new byte[16];
            SgIo io = new SgIo().cdb(c, SdCdb.verify16(c, 100, 128, SdCdb.BYTCHK_COMPARE));
            r.lld.clear();
            assertThat(run(h, io, data)).isEqualTo(BlkStatus.OK);
            assertThat(io.good()).isTrue();
            assertThat(r.lld.cdbs()).hasSize(1);
            assertThat(r.lld.cdbs().get(0)[0] & 0xFF).isEqualTo(ScsiOpcode.VERIFY_16);

            data.put(12345, (byte) (data.get(12345) ^ 0x40));
            io.cdb(c, SdCdb.verify16(c, 100, 128, SdCdb.BYTCHK_COMPARE));
            assertThat(run(h, io, data)).as("delivered; the outcome is in the SgIo").isEqualTo(BlkStatus.OK);
            assertThat(io.good()).isFalse();
            assertThat(io.senseKey()).isEqualTo(SenseKey.MISCOMPARE);
            assertThat(io.ascAscq()).isEqualTo(0x1D00);
            assertThat(io.information()).isEqualTo(12345);
        }
    }

    @Test
    void aDeviceWithoutPassthroughAnswersNotsupp() throws Exception {
        try (BlockDevice dev = BlockDevices.open("null:size=1")) {
            assertThat(dev.queue().supportsPassthrough()).isFalse();
            byte[] c = new byte[16];
            assertThat(run(dev.openHandle(), new SgIo().cdb(c, 16), ByteBuffer.allocate(512)))
                    .isEqualTo(BlkStatus.NOTSUPP);
        }
    }
}
