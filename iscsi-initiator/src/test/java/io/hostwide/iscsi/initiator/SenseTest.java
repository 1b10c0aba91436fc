package io.hostwide.iscsi.initiator;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostwide.blk.ReqOp;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.scsi.mid.ExecResult;
import io.hostwide.scsi.mid.ScsiCmnd;
import io.hostwide.scsi.mid.ScsiDevice;
import io.hostwide.scsi.spec.BigEndian;
import io.hostwide.scsi.spec.ScsiOpcode;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseKey;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** CHECK CONDITION and its sense data travel from the target's SCSI Response into the command (RFC 7143 §11.4.7). */
class SenseTest {
    @Test
    void readPastTheEndIsIllegalRequestLbaOutOfRange() throws Exception {
        try (TestTarget t = new TestTarget(); IscsiHba hba = IscsiHba.connect(t.config())) {
            ScsiDevice sdev = hba.disk(0).scsiDevice();
            long blocks = hba.disk(0).capacityBytes() / 512;
            byte[] cdb = new byte[16];
            cdb[0] = (byte) ScsiOpcode.READ_16;
            BigEndian.put64(cdb, 2, blocks);          // first LBA past the end
            BigEndian.put32(cdb, 10, 1);
            ExecResult r = hba.host().execute(sdev, cdb, 16, ScsiCmnd.DIR_FROM_DEVICE, ByteBuffer.allocate(512), 512,
                    5000);
            assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
            assertThat(r.senseKey()).isEqualTo(SenseKey.ILLEGAL_REQUEST);
            assertThat(r.ascAscq()).isEqualTo(0x2100);   // LOGICAL BLOCK ADDRESS OUT OF RANGE
            assertThat(r.resid()).isEqualTo(512);
        }
    }

    @Test
    void goodReadReportsNoResidual() throws Exception {
        try (TestTarget t = new TestTarget(); IscsiHba hba = IscsiHba.connect(t.config())) {
            byte[] cdb = new byte[10];
            cdb[0] = (byte) ScsiOpcode.READ_10;
            BigEndian.put16(cdb, 7, 8);
            ExecResult r = hba.host().execute(hba.disk(0).scsiDevice(), cdb, 10, ScsiCmnd.DIR_FROM_DEVICE,
                    ByteBuffer.allocate(4096), 4096, 5000);
            assertThat(r.good()).isTrue();
            assertThat(r.resid()).isZero();
            try (SubmitHandle h = hba.disk(0).openHandle()) {
                assertThat(SubmitHandle.ok(DiskIo.sync(h, ReqOp.READ, 0, 4096, ByteBuffer.allocate(4096)))).isTrue();
            }
        }
    }
}
