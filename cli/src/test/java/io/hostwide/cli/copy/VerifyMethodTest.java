package io.hostwide.cli.copy;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDevices;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.cli.Main;
import io.hostwide.cli.util.Interrupts;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** verify by compare and by VERIFY(16) BYTCHK=1 on emulated SCSI disks: equal LUNs pass, one flipped byte is found. */
class VerifyMethodTest {
    private static final String LOOP = "loop:size_mb=4,sector_size=512";

    private static PhaseResult run(Phase p, VerifyMethod m, BlockDevice a, BlockDevice b, CopyPlan plan)
            throws InterruptedException {
        return new CopyRunner(p, m, a, b, plan, Interrupts.none(), null).run();
    }

    private static void sync(SubmitHandle h, ReqOp op, long off, ByteBuffer buf) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        BlkStatus[] st = new BlkStatus[1];
        h.submit(op, off, buf.remaining(), buf, (ud, s) -> {
            st[0] = s;
            done.countDown();
        }, 0);
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(st[0]).isEqualTo(BlkStatus.OK);
    }

    @Test
    void identicalLunsPassAndAFlippedByteIsReportedAtItsOffsetAndLbaByBothMethods() throws Exception {
        try (BlockDevice a = BlockDevices.open(LOOP); BlockDevice b = BlockDevices.open(LOOP)) {
            CopyPlan plan = new CopyPlan(0, 0, 4L << 20, 64 * 1024, 4, 2, 11);
            assertThat(run(Phase.FILL, VerifyMethod.COMPARE, a, a, plan).ok()).isTrue();
            assertThat(run(Phase.COPY, VerifyMethod.COMPARE, a, b, plan).ok()).isTrue();
            for (VerifyMethod m : VerifyMethod.values()) {
                PhaseResult r = run(Phase.VERIFY, m, a, b, plan);
                assertThat(r.ok()).as(m.label).isTrue();
                assertThat(r.method()).isEqualTo(m);
                assertThat(r.bytes()).isEqualTo(4L << 20);
            }
            long flipped = 3L * 64 * 1024 + 1000 * 512 % (64 * 1024) + 77;   // inside chunk 3, not on a block edge
            SubmitHandle h = b.openHandle();
            long block = flipped / 512 * 512;
            ByteBuffer blk = ByteBuffer.allocate(512);
            sync(h, ReqOp.READ, block, blk);
            blk.put((int) (flipped - block), (byte) ~blk.get((int) (flipped - block)));
            sync(h, ReqOp.WRITE, block, blk);
            for (VerifyMethod m : VerifyMethod.values()) {
                PhaseResult r = run(Phase.VERIFY, m, a, b, plan);
                assertThat(r.mismatches()).as(m.label).isEqualTo(1);
                assertThat(r.firstMismatch()).as(m.label).isEqualTo(flipped);
                assertThat(r.firstMismatchLba()).as(m.label).isEqualTo(flipped / 512);
                assertThat(r.toText()).contains("first difference at byte " + flipped + " (LBA " + flipped / 512 + ")");
            }
        }
    }

    @Test
    void chunksLargerThanTheDevicesTransferLimitAreVerifiedInPiecesAndTheOffsetStillLandsRight() throws Exception {
        String spec = "loop:size_mb=32,sector_size=512";
        try (BlockDevice a = BlockDevices.open(spec); BlockDevice b = BlockDevices.open(spec)) {
            long limit = b.queue().maxHwSectorsKb() * 1024L;
            int chunk = (int) Math.min(64L << 20, 2 * limit);
            assertThat(limit).as("the loop LUN's MAXIMUM TRANSFER LENGTH").isLessThan(chunk);
            CopyPlan plan = new CopyPlan(0, 0, 2L * chunk, chunk, 1, 1, 5);
            assertThat(plan.bytes()).isLessThanOrEqualTo(32L << 20);
            assertThat(run(Phase.FILL, VerifyMethod.COMPARE, a, a, plan).ok()).isTrue();
            assertThat(run(Phase.COPY, VerifyMethod.COMPARE, a, b, plan).ok()).isTrue();
            assertThat(run(Phase.VERIFY, VerifyMethod.VERIFY_CMD, a, b, plan).ok()).isTrue();
            long flipped = chunk + limit + 4097;   // second chunk, second VERIFY piece
            long block = flipped / 512 * 512;
            ByteBuffer blk = ByteBuffer.allocate(512);
            SubmitHandle h = b.openHandle();
            sync(h, ReqOp.READ, block, blk);
            blk.put((int) (flipped - block), (byte) ~blk.get((int) (flipped - block)));
            sync(h, ReqOp.WRITE, block, blk);
            PhaseResult r = run(Phase.VERIFY, VerifyMethod.VERIFY_CMD, a, b, plan);
            assertThat(r.mismatches()).isEqualTo(1);
            assertThat(r.firstMismatch()).isEqualTo(flipped);
        }
    }

    @Test
    void theDefaultIsVerifyCmdOnScsiDisksAndCompareElsewhere() throws Exception {
        CopyPlan plan = new CopyPlan(0, 0, 1 << 20, 64 * 1024, 1, 1, 1);
        try (BlockDevice scsi = BlockDevices.open(LOOP); BlockDevice nul = BlockDevices.open("null:size=8")) {
            assertThat(VerifyCmd.resolve(null, scsi, plan)).isEqualTo(VerifyMethod.VERIFY_CMD);
            assertThat(VerifyCmd.resolve(null, nul, plan)).isEqualTo(VerifyMethod.COMPARE);
            assertThat(VerifyCmd.resolve(VerifyMethod.COMPARE, scsi, plan)).isEqualTo(VerifyMethod.COMPARE);
            assertThatThrownBy(() -> VerifyCmd.resolve(VerifyMethod.VERIFY_CMD, nul, plan))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("--method verify-cmd").hasMessageContaining("not a SCSI disk");
        }
    }

    private static int cli(StringWriter out, StringWriter err, String... args) {
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @Test
    void theCommandsTakeMethodAndRefuseItWhereItCannotWork() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        assertThat(cli(out, err, "verify", "--from", LOOP, "--to", LOOP, "--bs", "256k")).isZero();
        assertThat(out.toString()).contains("method verify-cmd").contains("no differences");

        out = new StringWriter();
        assertThat(cli(out, err, "copy", "--from", LOOP, "--to", LOOP, "--fill-source", "--verify", "--method",
                "compare")).isZero();
        assertThat(out.toString()).contains("method compare").contains("no differences");

        String[][] bad = {
            {"verify", "--from", "null:size=8", "--to", "null:size=8", "--method", "verify-cmd"},
            {"copy", "--from", "null:size=8", "--to", "null:size=8", "--method", "compare"},
            {"verify", "--from", "null:size=8", "--to", "null:size=8", "--method", "bytes"},
        };
        String[] expect = {"does not take VERIFY(16)", "only meaningful with --verify", "not a method"};
        for (int i = 0; i < bad.length; i++) {
            err = new StringWriter();
            assertThat(cli(new StringWriter(), err, bad[i])).as(String.join(" ", bad[i])).isEqualTo(2);
            assertThat(err.toString()).contains(expect[i]).doesNotContain("\tat ");
        }
    }
}
