package io.hostwide.cli.copy;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.scsi.sd.SdCdb;
import io.hostwide.scsi.sd.SgIo;
import io.hostwide.scsi.spec.SenseKey;

import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * VERIFY(16) with BYTCHK=1 as the verify method (SBC-4 §5.34): which method a run uses, and the per-piece CDBs.
 * Support is found by trying: one VERIFY of the destination's first block with a zero block as Data-Out. GOOD or
 * MISCOMPARE mean the device compares; ILLEGAL REQUEST (INVALID COMMAND OPERATION CODE, or INVALID FIELD IN CDB
 * for BYTCHK) or a device without passthrough means it does not, and the default falls back to compare.
 */
final class VerifyCmd {
    private static final long PROBE_TIMEOUT_SECONDS = 60;

    private VerifyCmd() {
    }

    /**
     * The method a verify of {@code plan} on {@code dst} uses: {@code requested}, or the default (verify-cmd
     * when the destination takes it, else compare). A requested verify-cmd the device refuses is an
     * {@link IllegalArgumentException} naming the option, before any copy or verify I/O.
     */
    static VerifyMethod resolve(VerifyMethod requested, BlockDevice dst, CopyPlan plan) throws InterruptedException {
        if (requested == VerifyMethod.COMPARE) {
            return VerifyMethod.COMPARE;
        }
        String refusal = plan.bytes() == 0 ? "nothing to verify" : probe(dst, plan.dstOffset());
        if (refusal == null) {
            return VerifyMethod.VERIFY_CMD;
        }
        if (requested == VerifyMethod.VERIFY_CMD) {
            throw new IllegalArgumentException("--method verify-cmd: " + dst.name()
                    + " does not take VERIFY(16) with BYTCHK=1 (" + refusal + "); use --method compare");
        }
        return VerifyMethod.COMPARE;
    }

    /** Null when the device compares; otherwise why not. */
    static String probe(BlockDevice dst, long offset) throws InterruptedException {
        if (!dst.queue().supportsPassthrough()) {
            return "not a SCSI disk";
        }
        int lbs = dst.logicalBlockSize();
        byte[] c = new byte[16];
        SgIo io = new SgIo().cdb(c, SdCdb.verify16(c, offset / lbs, 1, SdCdb.BYTCHK_COMPARE));
        CountDownLatch done = new CountDownLatch(1);
        BlkStatus[] st = new BlkStatus[1];
        SubmitHandle h = dst.openHandle();
        h.passthrough(ReqOp.DRV_OUT, io, ByteBuffer.allocate(lbs), lbs, (ud, s) -> {
            st[0] = s;
            done.countDown();
        }, 0);
        if (!done.await(PROBE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            return "no answer to VERIFY(16) in " + PROBE_TIMEOUT_SECONDS + " s";
        }
        if (st[0] != BlkStatus.OK) {
            return "VERIFY(16) failed: " + st[0];
        }
        if (io.good() || io.senseKey() == SenseKey.MISCOMPARE) {
            return null;
        }
        return describe(io);
    }

    /** "ILLEGAL REQUEST, ASC/ASCQ 20h/00h" style text of a failed command. */
    static String describe(SgIo io) {
        if (io.senseKey() < 0) {
            return String.format(Locale.ROOT, "status 0x%02x", io.status());
        }
        int a = io.ascAscq();
        return String.format(Locale.ROOT, "sense key %s, ASC/ASCQ %02Xh/%02Xh", SenseKey.name(io.senseKey()),
                (a >>> 8) & 0xFF, a & 0xFF);
    }
}
