package io.hostwide.tcm;

import io.hostwide.scsi.spec.Asc;
import io.hostwide.scsi.spec.ScsiStatus;
import io.hostwide.scsi.spec.SenseKey;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.backstore.RamBackstore;
import io.hostwide.tcm.lu.DeviceAttributes;
import io.hostwide.tcm.spi.AsyncBackstore;
import io.hostwide.tcm.spi.BackstoreStatusException;
import io.hostwide.tcm.spi.SenseReason;
import io.hostwide.tcm.spi.TargetCommand;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The asynchronous form of the backstore SPI under the core (issue 15), without Ceph: a RAM backstore whose
 * READ/WRITE/SYNCHRONIZE CACHE completions wait in a queue until the test steps them, so "not completed before the
 * backstore answered" is a fact, not a timing. Also what an asynchronous error becomes (MEDIUM ERROR, BUSY) and a
 * full backstore queue (TASK SET FULL).
 */
class AsyncBackstoreTest {
    private static final int BS = Harness.BLOCK;

    /** RAM underneath, completions held until {@link #step()}; refuses submissions beyond {@code limit} held. */
    static final class SteppedBackstore implements AsyncBackstore {
        final RamBackstore ram = new RamBackstore(Harness.BLOCKS * BS, BS);
        final Queue<Runnable> held = new ArrayDeque<>();
        int limit = Integer.MAX_VALUE;
        IOException failNext;
        int submitted;
        /** Every read's destination buffer, in submission order. */
        final java.util.List<ByteBuffer> readDsts = new java.util.ArrayList<>();

        synchronized boolean hold(Runnable r) {
            if (held.size() >= limit) {
                return false;
            }
            submitted++;
            held.add(r);
            return true;
        }

        /** Completes the oldest held operation; false when none is held. */
        boolean step() {
            Runnable r;
            synchronized (this) {
                r = held.poll();
            }
            if (r == null) {
                return false;
            }
            r.run();
            return true;
        }

        private IOException outcome(IoCall call) {
            IOException e = failNext;
            failNext = null;
            if (e != null) {
                return e;
            }
            try {
                call.run();
                return null;
            } catch (IOException x) {
                return x;
            }
        }

        interface IoCall {
            void run() throws IOException;
        }

        @Override
        public boolean submitRead(long lba, ByteBuffer dst, Done done) {
            readDsts.add(dst);
            return hold(() -> done.done(outcome(() -> ram.read(lba, dst))));
        }

        @Override
        public boolean submitWrite(long lba, ByteBuffer src, boolean fua, Done done) {
            ByteBuffer copy = ByteBuffer.allocate(src.remaining()).put(src).flip(); // consumed before returning
            return hold(() -> done.done(outcome(() -> ram.write(lba, copy, fua))));
        }

        @Override
        public boolean submitFlush(Done done) {
            return hold(() -> done.done(outcome(ram::flush)));
        }

        @Override public int blockSize() { return BS; }
        @Override public long blockCount() { return ram.blockCount(); }
        @Override public boolean blocking() { return true; }
        @Override public void read(long lba, ByteBuffer dst) throws IOException { ram.read(lba, dst); }
        @Override public void write(long lba, ByteBuffer src, boolean fua) throws IOException { ram.write(lba, src, fua); }
        @Override public void flush() throws IOException { ram.flush(); }
        @Override public boolean supportsUnmap() { return true; }
        @Override public boolean unmapReturnsZeros() { return true; }
        @Override public void unmap(long lba, long blocks) throws IOException { ram.unmap(lba, blocks); }
        @Override public long provisioningRun(long lba, long maxBlocks) throws IOException { return ram.provisioningRun(lba, maxBlocks); }
        @Override public String describe() { return "stepped async ram"; }
        @Override public void close() throws IOException { ram.close(); }
    }

    private static CompletableFuture<TestFabric.Result> start(Harness h, byte[] cdb, int length, int dir, byte[] out) {
        return h.fabric.start(h.session, 0, cdb, TaskAttribute.SIMPLE, length, dir, out);
    }

    @Test
    void commandsCompleteWhenTheBackstoreAnswersNotBefore() throws Exception {
        SteppedBackstore b = new SteppedBackstore();
        try (Harness h = new Harness(new DeviceAttributes(), b, false)) {
            byte[] data = Harness.pattern(8 * BS, 1);
            CompletableFuture<TestFabric.Result> w = start(h, Harness.write10(10, 8), 8 * BS, TargetCommand.DIR_WRITE, data);
            CompletableFuture<TestFabric.Result> f = start(h, Harness.cdb(0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0,
                    TargetCommand.DIR_NONE, null);
            assertThat(b.submitted).as("both submitted inline, none on the I/O queue").isEqualTo(2);
            assertThat(w).isNotDone();
            assertThat(f).isNotDone();
            assertThat(b.step()).isTrue();
            assertThat(w.getNow(null).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(f).isNotDone();
            assertThat(b.step()).isTrue();
            assertThat(f.getNow(null).status()).isEqualTo(ScsiStatus.GOOD);

            CompletableFuture<TestFabric.Result> r = start(h, Harness.read10(10, 8), 8 * BS, TargetCommand.DIR_READ, null);
            assertThat(r).isNotDone();
            assertThat(b.step()).isTrue();
            assertThat(r.getNow(null).data()).isEqualTo(data);
            assertThat(b.step()).isFalse();
        }
    }

    @Test
    void errorsBecomeMediumErrorOrTheBackstoresOwnAnswer() throws Exception {
        SteppedBackstore b = new SteppedBackstore();
        try (Harness h = new Harness(new DeviceAttributes(), b, false)) {
            b.failNext = new IOException("injected");
            CompletableFuture<TestFabric.Result> r = start(h, Harness.read10(5, 1), BS, TargetCommand.DIR_READ, null);
            b.step();
            assertThat(r.getNow(null).senseKey()).isEqualTo(SenseKey.MEDIUM_ERROR);
            assertThat(r.getNow(null).ascAscq()).isEqualTo(Asc.UNRECOVERED_READ_ERROR);
            assertThat(r.getNow(null).information()).isEqualTo(5);

            b.failNext = new IOException("injected");
            CompletableFuture<TestFabric.Result> w = start(h, Harness.write10(6, 1), BS, TargetCommand.DIR_WRITE, new byte[BS]);
            b.step();
            assertThat(w.getNow(null).senseKey()).isEqualTo(SenseKey.MEDIUM_ERROR);
            assertThat(w.getNow(null).ascAscq()).isEqualTo(Asc.WRITE_ERROR);

            b.failNext = new BackstoreStatusException(SenseReason.BUSY, "timed out");
            w = start(h, Harness.write10(6, 1), BS, TargetCommand.DIR_WRITE, new byte[BS]);
            b.step();
            assertThat(w.getNow(null).status()).isEqualTo(ScsiStatus.BUSY);

            b.failNext = new BackstoreStatusException(SenseReason.ALUA_STANDBY, "blocklisted");
            r = start(h, Harness.read10(5, 1), BS, TargetCommand.DIR_READ, null);
            b.step();
            assertThat(r.getNow(null).senseKey()).isEqualTo(SenseKey.NOT_READY);
        }
    }

    /**
     * A read answered while the storage may still fill its buffer in place (RBD's watchdog BUSY for a read librbd
     * holds, {@link BackstoreStatusException#dstRetained()}): the command's Data-In buffer is retired, never handed
     * to a later read, so the late fill cannot land in another command's data.
     */
    @Test
    void aReadAnsweredWhileTheStorageHoldsItsBufferRetiresTheBuffer() throws Exception {
        SteppedBackstore b = new SteppedBackstore();
        try (Harness h = new Harness(new DeviceAttributes(), b, false)) {
            byte[] data = Harness.pattern(BS, 7);
            start(h, Harness.write10(3, 1), BS, TargetCommand.DIR_WRITE, data);
            b.step();
            for (int i = 0; i < 2; i++) {
                CompletableFuture<TestFabric.Result> r = start(h, Harness.read10(3, 1), BS, TargetCommand.DIR_READ, null);
                b.step();
                assertThat(r.getNow(null).data()).isEqualTo(data);
            }
            assertThat(b.readDsts.get(1)).as("a command's Data-In buffer is reused").isSameAs(b.readDsts.get(0));

            b.failNext = new BackstoreStatusException(SenseReason.BUSY, "no answer", false, true);
            CompletableFuture<TestFabric.Result> busy = start(h, Harness.read10(3, 1), BS, TargetCommand.DIR_READ, null);
            b.step();
            assertThat(busy.getNow(null).status()).isEqualTo(ScsiStatus.BUSY);
            ByteBuffer retained = b.readDsts.get(2);

            for (int i = 0; i < 3; i++) {
                CompletableFuture<TestFabric.Result> r = start(h, Harness.read10(3, 1), BS, TargetCommand.DIR_READ, null);
                retained.duplicate().clear().put(new byte[BS]); // the storage's late fill of the retired buffer
                b.step();
                assertThat(r.getNow(null).data()).isEqualTo(data);
                assertThat(b.readDsts.get(3 + i)).as("read %d after the retired one", i).isNotSameAs(retained);
            }
        }
    }

    @Test
    void aFullBackstoreQueueIsTaskSetFull() throws Exception {
        SteppedBackstore b = new SteppedBackstore();
        b.limit = 1;
        try (Harness h = new Harness(new DeviceAttributes(), b, false)) {
            CompletableFuture<TestFabric.Result> first = start(h, Harness.read10(0, 1), BS, TargetCommand.DIR_READ, null);
            CompletableFuture<TestFabric.Result> second = start(h, Harness.write10(0, 1), BS, TargetCommand.DIR_WRITE,
                    new byte[BS]);
            assertThat(second.getNow(null).status()).isEqualTo(ScsiStatus.TASK_SET_FULL);
            b.step();
            assertThat(first.getNow(null).status()).isEqualTo(ScsiStatus.GOOD);
            // the refused WRITE gave its range back: the next one is not blocked by it
            CompletableFuture<TestFabric.Result> third = start(h, Harness.write10(0, 1), BS, TargetCommand.DIR_WRITE,
                    new byte[BS]);
            b.step();
            assertThat(third.getNow(null).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }
}
