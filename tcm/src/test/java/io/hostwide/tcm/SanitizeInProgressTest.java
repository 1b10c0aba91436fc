package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseData;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.Backstore;
import io.hostwide.tcm.spi.TargetCommand;
import io.hostwide.tcm.tmf.TmfFunction;
import io.hostwide.tcm.tmf.TmfResult;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.hostwide.tcm.Harness.BLOCK;
import static io.hostwide.tcm.Harness.cdb;
import static io.hostwide.tcm.SanitizeTest.overwriteList;
import static io.hostwide.tcm.SanitizeTest.sanitize;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * SANITIZE in the background (SBC-4 §4.11, §5.30; libiscsi Sanitize.Reset): IMMED returns at once, other commands
 * see NOT READY / SANITIZE IN PROGRESS with a progress indication, REQUEST SENSE reports it under NO SENSE, and
 * neither an abort of the SANITIZE command nor a LOGICAL UNIT RESET stops the operation. Stepped by hand.
 */
class SanitizeInProgressTest {
    static final int CHUNK_BLOCKS = (1 << 20) / BLOCK;
    static final int BLOCKS = 4 * CHUNK_BLOCKS; // 4 MiB: four chunks per pass

    final ManualBackground bg = new ManualBackground();

    Harness harness(DeviceAttributes a) {
        Harness h = new Harness(a, new RamBackstore((long) BLOCKS * BLOCK, BLOCK));
        h.core.background(bg);
        return h;
    }

    static byte[] immed(byte[] c) {
        c[1] |= (byte) 0x80;
        return c;
    }

    static byte[] tur() { return cdb(0, 0, 0, 0, 0, 0); }

    static void assertSanitizing(TestFabric.Result r, int progress) {
        assertThat(r.status()).as("%s", r).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(r.senseKey()).isEqualTo(SenseKey.NOT_READY);
        assertThat(r.ascAscq()).isEqualTo(Asc.LOGICAL_UNIT_NOT_READY_SANITIZE_IN_PROGRESS);
        assertThat(r.fieldPointer()).isEqualTo(SenseData.SKSV | progress);
    }

    @Test
    void immedReturnsAtOnceAndTheLuReportsProgressUntilDone() {
        try (Harness h = harness(new DeviceAttributes())) {
            byte[] list = overwriteList(0x01, BLOCK, 0x5A);
            assertThat(h.out(immed(sanitize(0x01, list.length)), list).status()).isEqualTo(ScsiStatus.GOOD);
            assertSanitizing(h.none(tur()), 0);
            assertSanitizing(h.in(Harness.read10(0, 1), BLOCK), 0);
            assertSanitizing(h.out(Harness.write10(0, 1), new byte[BLOCK]), 0);
            assertSanitizing(h.out(immed(sanitize(0x01, list.length)), list), 0); // one sanitize at a time
            assertThat(h.in(cdb(0x12, 0, 0, 0, 96, 0), 96).status()).isEqualTo(ScsiStatus.GOOD); // INQUIRY
            assertThat(h.in(cdb(0xA0, 0, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0), 64).status()).isEqualTo(ScsiStatus.GOOD);

            assertThat(bg.runNext()).isTrue(); // one chunk of four
            assertSanitizing(h.none(tur()), 0x4000);
            byte[] rs = h.in(cdb(0x03, 0, 0, 0, 18, 0), 18).data(); // REQUEST SENSE, fixed format
            assertThat(SenseData.senseKey(rs)).isEqualTo(SenseKey.NO_SENSE);
            assertThat(SenseData.ascAscq(rs)).isEqualTo(Asc.LOGICAL_UNIT_NOT_READY_SANITIZE_IN_PROGRESS);
            assertThat(SenseData.senseKeySpecific(rs, rs.length)).isEqualTo(SenseData.SKSV | 0x4000);
            byte[] rsd = h.in(cdb(0x03, 1, 0, 0, 252, 0), 252).data(); // descriptor format carries it too
            assertThat(SenseData.isDescriptorFormat(rsd)).isTrue();
            assertThat(SenseData.senseKeySpecific(rsd, rsd.length)).isEqualTo(SenseData.SKSV | 0x4000);

            assertThat(bg.runAll()).isEqualTo(3);
            assertThat(h.none(tur()).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(BLOCKS - 1, 1), BLOCK).data()).containsOnly(0x5A);
            assertThat(SenseData.senseKey(h.in(cdb(0x03, 0, 0, 0, 18, 0), 18).data())).isEqualTo(SenseKey.NO_SENSE);
            assertThat(SenseData.ascAscq(h.in(cdb(0x03, 0, 0, 0, 18, 0), 18).data())).isZero();
        }
    }

    @Test
    void withoutImmedTheCommandCompletesWithTheOperation() throws Exception {
        try (Harness h = harness(new DeviceAttributes())) {
            byte[] list = overwriteList(0x82, 4, 0x0F); // two passes, the second inverted
            CompletableFuture<TestFabric.Result> f = start(h, sanitize(0x01, list.length), list);
            for (int i = 0; i < 7; i++) {
                assertThat(bg.runNext()).isTrue();
                assertThat(f).isNotDone();
            }
            assertSanitizing(h.none(tur()), 7 * 0x10000 / 8);
            assertThat(bg.runNext()).isTrue();
            assertThat(f.get(5, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(0, 1), BLOCK).data()).containsOnly(0xF0);
            assertThat(bg.pending()).isZero();
        }
    }

    /** libiscsi Sanitize.Reset: ABORT TASK and LOGICAL UNIT RESET end the command, not the operation. */
    @Test
    void abortsAndResetsDoNotStopTheOperation() throws Exception {
        try (Harness h = harness(new DeviceAttributes())) {
            byte[] list = overwriteList(0x01, BLOCK, 0x33);
            CompletableFuture<TestFabric.Result> f = start(h, sanitize(0x01, list.length), list);
            bg.runNext();
            CompletableFuture<TmfResult> abort = tmf(h, TmfFunction.ABORT_TASK, tagOf(h));
            assertThat(abort).isNotDone(); // the TMF answers once the aborted command has completed
            bg.runNext(); // the next chunk releases the aborted command, then writes
            assertThat(abort.get(5, TimeUnit.SECONDS)).isNotNull();
            assertThat(f.get(5, TimeUnit.SECONDS)).isNotNull();
            assertSanitizing(h.none(tur()), 0x8000);
            CompletableFuture<TmfResult> reset = tmf(h, TmfFunction.LOGICAL_UNIT_RESET, 0);
            assertThat(reset.get(5, TimeUnit.SECONDS)).isNotNull();
            TestFabric.Result afterReset = h.none(tur());
            if (afterReset.senseKey() == SenseKey.UNIT_ATTENTION) { // 29h/03h first, then the sanitize
                afterReset = h.none(tur());
            }
            assertSanitizing(afterReset, 0x8000);
            bg.runAll();
            assertThat(h.none(tur()).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(h.in(Harness.read10(BLOCKS - 1, 1), BLOCK).data()).containsOnly(0x33);
        }
    }

    @Test
    void eraseRunsInTheBackgroundToo() throws Exception {
        RamBackstore ram = new RamBackstore((long) BLOCKS * BLOCK, BLOCK);
        try (Harness h = new Harness(new DeviceAttributes().thinProvisioning(true), ram)) {
            h.core.background(bg);
            h.out(Harness.write10(0, 8), Harness.pattern(8 * BLOCK, 4));
            assertThat(h.none(immed(sanitize(0x02, 0))).status()).isEqualTo(ScsiStatus.GOOD);
            assertSanitizing(h.none(tur()), 0);
            assertThat(ram.allocatedPages()).isPositive();
            bg.runAll();
            assertThat(ram.allocatedPages()).isZero();
            assertThat(h.none(tur()).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    /** A sanitize rate paces the chunks: each is due when the bytes so far would have taken at that rate. */
    @Test
    void sanitizeRatePacesTheChunks() {
        try (Harness h = harness(new DeviceAttributes().sanitizeRate(4L << 20))) { // 4 MiB/s: 250 ms a chunk
            byte[] list = overwriteList(0x01, 4, 0x11);
            assertThat(h.out(immed(sanitize(0x01, list.length)), list).status()).isEqualTo(ScsiStatus.GOOD);
            bg.runNext();
            assertThat(bg.delays()).containsExactly(0L, 250_000_000L);
            bg.advance(249_000_000L);
            assertSanitizing(h.none(tur()), 0x4000);
            bg.advance(1_000_000L);
            assertSanitizing(h.none(tur()), 0x8000);
            bg.advance(500_000_000L);
            assertThat(h.none(tur()).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    /** A RAM backstore whose writes fail once {@code failWrites} is set. */
    static final class FailingRam implements Backstore {
        final RamBackstore ram = new RamBackstore((long) BLOCKS * BLOCK, BLOCK);
        volatile boolean failWrites;

        @Override public int blockSize() { return ram.blockSize(); }
        @Override public long blockCount() { return ram.blockCount(); }
        @Override public boolean blocking() { return false; }
        @Override public void read(long lba, java.nio.ByteBuffer dst) { ram.read(lba, dst); }
        @Override public void flush() {}
        @Override public boolean supportsUnmap() { return true; }
        @Override public boolean unmapReturnsZeros() { return true; }
        @Override public void unmap(long lba, long blocks) { ram.unmap(lba, blocks); }
        @Override public long provisioningRun(long lba, long max) { return ram.provisioningRun(lba, max); }
        @Override public String describe() { return "failing " + ram.describe(); }
        @Override public void close() { ram.close(); }

        @Override
        public void write(long lba, java.nio.ByteBuffer src, boolean fua) throws java.io.IOException {
            if (failWrites) {
                throw new java.io.IOException("injected write failure");
            }
            ram.write(lba, src, fua);
        }
    }

    /** SBC-4 §4.11.4: a failed sanitize leaves the LU in failure mode until EXIT FAILURE MODE or a good sanitize. */
    @Test
    void aFailedSanitizeLeavesTheLuInFailureMode() throws Exception {
        FailingRam store = new FailingRam();
        try (Harness h = new Harness(new DeviceAttributes(), store)) {
            h.core.background(bg);
            byte[] list = overwriteList(0x01, 4, 0x22);
            CompletableFuture<TestFabric.Result> f = start(h, sanitize(0x01, list.length), list);
            bg.runNext();
            store.failWrites = true;
            bg.runNext();
            TestFabric.Result r = f.get(5, TimeUnit.SECONDS);
            assertThat(r.senseKey()).isEqualTo(SenseKey.MEDIUM_ERROR);
            assertThat(r.ascAscq()).isEqualTo(Asc.SANITIZE_COMMAND_FAILED);
            assertThat(bg.pending()).isZero();
            TestFabric.Result read = h.in(Harness.read10(0, 1), BLOCK);
            assertThat(read.senseKey()).isEqualTo(SenseKey.MEDIUM_ERROR);
            assertThat(read.ascAscq()).isEqualTo(Asc.SANITIZE_COMMAND_FAILED);
            assertThat(h.in(cdb(0x12, 0, 0, 0, 96, 0), 96).status()).isEqualTo(ScsiStatus.GOOD);

            store.failWrites = false;
            assertThat(h.none(immed(sanitize(0x1F, 0))).status()).isEqualTo(ScsiStatus.GOOD); // EXIT FAILURE MODE
            assertThat(h.in(Harness.read10(0, 1), BLOCK).status()).isEqualTo(ScsiStatus.GOOD);

            store.failWrites = true; // fails again; then a sanitize that completes also ends failure mode
            assertThat(h.out(immed(sanitize(0x01, list.length)), list).status()).isEqualTo(ScsiStatus.GOOD);
            bg.runAll();
            assertThat(h.in(Harness.read10(0, 1), BLOCK).ascAscq()).isEqualTo(Asc.SANITIZE_COMMAND_FAILED);
            store.failWrites = false;
            assertThat(h.out(immed(sanitize(0x01, list.length)), list).status()).isEqualTo(ScsiStatus.GOOD);
            bg.runAll();
            assertThat(h.in(Harness.read10(BLOCKS - 1, 1), BLOCK).data()).containsOnly(0x22);
        }
    }

    private static CompletableFuture<TestFabric.Result> start(Harness h, byte[] cdb, byte[] data) {
        return h.fabric.start(h.session, LunAddress.encode(0), cdb, TaskAttribute.SIMPLE, data.length,
                TargetCommand.DIR_WRITE, data);
    }

    /** The tag TestFabric gave the last command it started (tags count up from its first). */
    private static long tagOf(Harness h) {
        return h.fabric.lastTag();
    }

    private static CompletableFuture<TmfResult> tmf(Harness h, TmfFunction f, long tag) {
        CompletableFuture<TmfResult> r = new CompletableFuture<>();
        h.core.taskManagement().request(h.session, f, LunAddress.encode(0), tag, r::complete);
        return r;
    }
}
