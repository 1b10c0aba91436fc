package io.hostwide.loop;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.ReqFlags;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.scsi.sd.SdCdb;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.tcm.lu.DeviceAttributes;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Per-request FUA and PREFLUSH at the CDB level through sd and the loop HBA: what reaches the target for each
 * combination of the device's WCE (caching mode page) and DPOFUA (MODE SENSE device-specific parameter).
 */
class FuaThroughLoopTest {
    private static final int BS = 512;

    private static String describe(byte[] cdb) {
        int op = cdb[0] & 0xFF;
        return switch (op) {
            case ScsiOpcode.WRITE_10 -> (cdb[1] & SdCdb.FUA) != 0 ? "WRITE(10)+FUA" : "WRITE(10)";
            case ScsiOpcode.SYNCHRONIZE_CACHE_10 -> "SYNCHRONIZE CACHE(10)";
            default -> "0x" + Integer.toHexString(op);
        };
    }

    private static List<String> write(SdRig r, int flags) throws InterruptedException {
        r.lld.clear();
        SubmitHandle h = r.disk.openHandle();
        ByteBuffer data = ByteBuffer.allocate(4096);
        data.putLong(0, 0xF0A_F0AL);
        CountDownLatch done = new CountDownLatch(1);
        BlkStatus[] st = new BlkStatus[1];
        int[] calls = new int[1];
        h.write(8192, 4096, data, flags, (ud, s) -> {
            st[0] = s;
            calls[0]++;
            done.countDown();
        }, 0);
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(st[0]).isEqualTo(BlkStatus.OK);
        assertThat(calls[0]).isEqualTo(1);
        ByteBuffer back = ByteBuffer.allocate(4096);
        assertThat(Io.sync(h, ReqOp.READ, 8192, 4096, back)).isEqualTo(BlkStatus.OK);
        assertThat(back.getLong(0)).isEqualTo(0xF0A_F0AL);
        return r.lld.cdbs().stream().filter(c -> (c[0] & 0xFF) != ScsiOpcode.READ_10).map(FuaThroughLoopTest::describe).toList();
    }

    @Test
    void withDpoFuaTheWriteCarriesTheFuaBitAndPreflushIsASynchronizeCacheBeforeIt() throws Exception {
        try (SdRig r = new SdRig(new DeviceAttributes(), 8 << 20, BS)) {
            assertThat(r.disk.info().writeCache()).isTrue();
            assertThat(r.disk.info().dpoFua()).isTrue();
            assertThat(write(r, ReqFlags.FUA)).containsExactly("WRITE(10)+FUA");
            assertThat(write(r, ReqFlags.PREFLUSH)).containsExactly("SYNCHRONIZE CACHE(10)", "WRITE(10)");
            assertThat(write(r, ReqFlags.PREFLUSH | ReqFlags.FUA)).containsExactly("SYNCHRONIZE CACHE(10)", "WRITE(10)+FUA");
            assertThat(write(r, 0)).containsExactly("WRITE(10)");
        }
    }

    @Test
    void withoutDpoFuaFuaBecomesASynchronizeCacheAfterTheWrite() throws Exception {
        try (SdRig r = new SdRig(new DeviceAttributes(), 8 << 20, BS, SdRig.template(), true)) {
            assertThat(r.disk.info().dpoFua()).isFalse();
            assertThat(r.disk.queue().fua()).isFalse();
            assertThat(write(r, ReqFlags.FUA)).containsExactly("WRITE(10)", "SYNCHRONIZE CACHE(10)");
            assertThat(write(r, ReqFlags.PREFLUSH | ReqFlags.FUA))
                    .containsExactly("SYNCHRONIZE CACHE(10)", "WRITE(10)", "SYNCHRONIZE CACHE(10)");
        }
    }

    @Test
    void withTheWriteCacheOffNoFlushIsSentAndFuaIsDropped() throws Exception {
        try (SdRig r = new SdRig(new DeviceAttributes().writeCacheEnabled(false), 8 << 20, BS)) {
            assertThat(r.disk.info().writeCache()).isFalse();
            assertThat(r.disk.queue().writeCache()).isFalse();
            assertThat(write(r, ReqFlags.PREFLUSH | ReqFlags.FUA)).containsExactly("WRITE(10)");
            r.lld.clear();
            assertThat(Io.sync(r.disk.openHandle(), ReqOp.FLUSH, 0, 0, null)).isEqualTo(BlkStatus.OK);
            assertThat(r.lld.cdbs()).as("a FLUSH with nothing to flush is not sent").isEmpty();
        }
    }
}
