package io.hostwide.loop;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.SharedTagModes;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDevices;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.scsi.mid.ScsiDevice;
import io.hostwide.scsi.mid.ScsiHost;
import io.hostwide.scsi.sd.ScsiDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The scsi_debug-style HBA: topology and scanning, knobs, error injection end to end. */
class DebugHbaTest {

    @Test
    void scanFindsEveryLunWithItsSizeAndLimits() {
        try (LoopHba hba = LoopHba.create(DebugParams.parse(
                "add_host=2,num_tgts=2,max_luns=3,dev_size_mb=4,sector_size=4096,delay=0,per_host_store=1,lbpu=1"))) {
            assertThat(hba.disks()).hasSize(12);
            for (ScsiDisk d : hba.disks()) {
                assertThat(d.logicalBlockSize()).isEqualTo(4096);
                assertThat(d.capacityBytes()).isEqualTo(4L << 20);
                assertThat(d.info().capacityBlocks()).isEqualTo(1024);
                assertThat(d.info().maxTransferBlocks()).as("VPD B0h MAXIMUM TRANSFER LENGTH")
                        .isEqualTo(hba.core().device("h0t0l0").maxTransferBlocks());
                assertThat(d.maxTransferBytes()).isEqualTo(d.info().maxTransferBlocks() * 4096);
                assertThat(d.info().lbpu()).isTrue();
                assertThat(d.info().lbpws()).as("lbpu alone advertises UNMAP only, as scsi_debug").isFalse();
                assertThat(d.info().thinProvisioned()).isTrue();
                assertThat(d.info().nonRotational()).isTrue();
                assertThat(d.info().vendor()).isEqualTo("HOSTWIDE");
            }
            ScsiDevice last = hba.disk(11).scsiDevice();
            assertThat(last.target().id()).isEqualTo(1);
            assertThat(last.lun()).isEqualTo(2);
            assertThat(hba.hosts()).hasSize(2);
        }
    }

    /**
     * ndelay written at run time (scsi_debug's sysfs attribute): from 0, a READ completes inline on the submitting
     * thread; after {@code setDelayNanos(20 us)} it completes on the HBA's completion timer; back at 0, inline again.
     * Which thread completes is asserted, not how long it took.
     */
    @Test
    void ndelayWrittenAtRunTimeMovesCompletionsToTheTimerAndBack() throws Exception {
        try (LoopHba hba = LoopHba.create(DebugParams.parse("ndelay=0"))) {
            SubmitHandle h = hba.disk(0).openHandle();
            assertThat(completingThread(h)).isSameAs(Thread.currentThread());
            hba.setDelayNanos(20_000);
            assertThat(hba.delayNanos()).isEqualTo(20_000);
            assertThat(hba.config().delayNanos()).as("the creation value").isZero();
            assertThat(completingThread(h).getName()).endsWith("-completion");
            hba.setDelayNanos(0);
            assertThat(completingThread(h)).isSameAs(Thread.currentThread());
            assertThatThrownBy(() -> hba.setDelayNanos(-1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> hba.setDelayNanos(LoopHba.MAX_DELAY_NANOS + 1))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    private static Thread completingThread(SubmitHandle h) throws InterruptedException {
        java.util.concurrent.CompletableFuture<Thread> on = new java.util.concurrent.CompletableFuture<>();
        h.read(0, 512, ByteBuffer.allocate(512), (u, st) -> on.complete(Thread.currentThread()), 0);
        try {
            return on.get(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new AssertionError("READ did not complete", e);
        }
    }

    @Test
    void sharedStoreIsSeenByEveryLunPerHostStoreIsNot() throws Exception {
        try (LoopHba shared = LoopHba.create(DebugParams.parse("max_luns=2,delay=0"));
             LoopHba apart = LoopHba.create(DebugParams.parse("add_host=2,per_host_store=1,delay=0"))) {
            assertThat(writeOnFirstReadOnSecond(shared)).isTrue();
            assertThat(writeOnFirstReadOnSecond(apart)).isFalse();
        }
    }

    private static boolean writeOnFirstReadOnSecond(LoopHba hba) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(512);
        b.put(0, (byte) 0x5A);
        assertThat(Io.sync(hba.disk(0).openHandle(), ReqOp.WRITE, 0, 512, b)).isEqualTo(BlkStatus.OK);
        ByteBuffer r = ByteBuffer.allocate(512);
        assertThat(Io.sync(hba.disk(1).openHandle(), ReqOp.READ, 0, 512, r)).isEqualTo(BlkStatus.OK);
        return r.get(0) == 0x5A;
    }

    @Test
    void hostMaxQueueTurnsOnHostTagsetAndSetsCanQueue() {
        try (LoopHba hba = LoopHba.create(DebugParams.parse("submit_queues=4,host_max_queue=32,delay=0"))) {
            ScsiHost host = hba.hosts().get(0);
            assertThat(host.hostTagset()).isTrue();
            assertThat(host.canQueue()).isEqualTo(32);
            assertThat(host.nrHwQueues()).isEqualTo(4);
            assertThat(hba.disk(0).scsiDevice().queueDepth()).isEqualTo(32);
            var snap = host.snapshot();
            assertThat(snap.canQueue()).isEqualTo(32);
            assertThat(snap.hostTagset()).isTrue();
            assertThat(snap.hostBusy()).isZero();
            assertThat(snap.devices()).singleElement().satisfies(d -> {
                assertThat(d.queueDepth()).isEqualTo(32);
                assertThat(d.deviceBusy()).isZero();
                assertThat(d.state()).isEqualTo("running");
                assertThat(d.iorequestCnt()).as("scanning bypasses the block layer").isZero();
            });
        }
    }

    @Test
    void impossibleCombinationsAndBadKnobsAreRefusedNamingTheKnob() {
        assertThatThrownBy(() -> BlockDevices.open("debug:host_max_queue=64,max_queue=32"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'host_max_queue' (64) must not exceed max_queue (32)");
        // Below max_queue: scsi_debug forces max_queue down to it; here the LUN would keep a depth of 32 on 16 tags.
        assertThatThrownBy(() -> BlockDevices.open("debug:host_max_queue=16,max_queue=32"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'host_max_queue' (16) forces max_queue (32) to match");
        assertThatThrownBy(() -> BlockDevices.open("debug:submit_queues=0"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("submit_queues");
        assertThatThrownBy(() -> BlockDevices.open("debug:max_queue=0"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_queue");
        assertThatThrownBy(() -> BlockDevices.open("debug:sector_size=1000"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sector_size");
        assertThatThrownBy(() -> BlockDevices.open("debug:opts=0x20"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("opts");
        assertThatThrownBy(() -> BlockDevices.open("debug:opts=0x14,every_nth=5"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("opts 0x14 sets more than one");
        assertThatThrownBy(() -> BlockDevices.open("debug:opts=0x4"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("opts 0x4 needs every_nth");
        assertThatThrownBy(() -> BlockDevices.open("debug:every_nth=5"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("every_nth=5 needs an opts bit");
        assertThatThrownBy(() -> BlockDevices.open("debug:opts=0x2,every_nth=5"))
                .as("medium errors are not counted").isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("every_nth=5 needs an opts bit");
        assertThatThrownBy(() -> BlockDevices.open("debug:seek_ns=5"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("seek_ns");
        assertThatThrownBy(() -> BlockDevices.open("debug:xfer_mbps=50"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("xfer_mbps");
        assertThatThrownBy(() -> BlockDevices.open("debug:cmd_ns=50"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cmd_ns");
        assertThatThrownBy(() -> BlockDevices.open("debug:shared_tags=fast"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shared_tags");
        assertThatThrownBy(() -> BlockDevices.open("loop:shared_tags=run_all_hctx+run_completing_hctx"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shared_tags");
        assertThatThrownBy(() -> BlockDevices.open("debug:max_luns=2,disk=2"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("disk");
    }

    @Test
    void hostMaxQueueEqualToAnExplicitMaxQueueIsAccepted() {
        try (LoopHba hba = LoopHba.create(DebugParams.parse("submit_queues=2,host_max_queue=24,max_queue=24,delay=0"))) {
            assertThat(hba.hosts().get(0).canQueue()).isEqualTo(24);
            assertThat(hba.disk(0).scsiDevice().queueDepth()).isEqualTo(24);
        }
    }

    @Test
    void sharedTagsKnobSetsTheTagSetModes() {
        try (LoopHba hba = LoopHba.create(DebugParams.parse("submit_queues=2,host_max_queue=32,delay=0,shared_tags=old"))) {
            assertThat(hba.hosts().get(0).tagSet().sharedTagModes()).isEqualTo(SharedTagModes.OLD);
        }
        try (LoopHba hba = LoopHba.create(DebugParams.parse("delay=0"))) {
            assertThat(hba.hosts().get(0).tagSet().sharedTagModes()).isEqualTo(SharedTagModes.IMPROVED);
        }
    }

    @Test
    void mediumErrorRangeFailsReadsThereOnly() throws Exception {
        try (BlockDevice dev = BlockDevices.open("debug:opts=0x2,delay=0")) {
            SubmitHandle h = dev.openHandle();
            ByteBuffer b = ByteBuffer.allocate(512);
            assertThat(Io.sync(h, ReqOp.READ, 0x1234L * 512, 512, b)).isEqualTo(BlkStatus.IOERR);
            assertThat(Io.sync(h, ReqOp.READ, 0x1000L * 512, 512, b)).isEqualTo(BlkStatus.OK);
            assertThat(Io.sync(h, ReqOp.WRITE, 0x1234L * 512, 512, b)).as("writes are not affected").isEqualTo(BlkStatus.OK);
        }
    }

    /**
     * Retryable injections: every request still completes exactly once and GOOD, and the data is right. Transport
     * errors use up {@code allowed} retries, so their period is prime and above max_queue. With every_nth=3 about
     * one run in 60 ended some writes with IOERR (0 in 200 with 11); the likely cause, not proven, is commands
     * requeued together being re-issued in the same order so that the same one is always the third, until its
     * five retries are used up: the injection pattern resonating rather than a lost retry.
     */
    @ParameterizedTest
    @ValueSource(strings = {"opts=0x8000,every_nth=4", "opts=0x10,every_nth=11", "opts=0x800,every_nth=3",
            "opts=0x4,every_nth=7,io_timeout=1000"})
    void injectedErrorsAreRecoveredAndEachRequestCompletesOnce(String knobs) throws Exception {
        try (BlockDevice dev = BlockDevices.open("debug:dev_size_mb=2,submit_queues=2,max_queue=8,ndelay=20000," + knobs)) {
            LoopHba hba = ((HbaDisk) dev).hba();
            SubmitHandle h = dev.openHandle();
            int n = 40;
            ByteBuffer[] data = new ByteBuffer[n];
            Io.Batch w = new Io.Batch();
            for (int i = 0; i < n; i++) {
                data[i] = ByteBuffer.allocate(512);
                data[i].putInt(0, 1000 + i);
                w.submit(h, ReqOp.WRITE, 512L * i, 512, data[i], i, 8);
            }
            w.await(60_000);
            assertThat(w.eachOnce(n)).isTrue();
            assertThat(w.status.values()).containsOnly(BlkStatus.OK);
            Io.Batch r = new Io.Batch();
            ByteBuffer[] in = new ByteBuffer[n];
            for (int i = 0; i < n; i++) {
                in[i] = ByteBuffer.allocate(512);
                r.submit(h, ReqOp.READ, 512L * i, 512, in[i], i, 8);
            }
            r.await(60_000);
            assertThat(r.eachOnce(n)).isTrue();
            assertThat(r.status.values()).containsOnly(BlkStatus.OK);
            for (int i = 0; i < n; i++) {
                assertThat(in[i].getInt(0)).isEqualTo(1000 + i);
            }
            assertThat(hba.injectedErrors()).isPositive();
            // Each opts bit took its own path through the midlayer.
            var host = hba.hosts().get(0).snapshot();
            var lun = host.devices().get(0);
            if (knobs.contains("0x8000")) {
                assertThat(host.hostBusyRefusals()).as("host busy: queuecommand refused").isPositive();
            } else if (knobs.contains("0x10")) {
                assertThat(lun.retriesNeedsRetry()).as("transport error: NEEDS_RETRY").isPositive();
            } else if (knobs.contains("0x800")) {
                assertThat(lun.queueFullEvents()).as("TASK SET FULL: queue-full tracking").isPositive();
                assertThat(lun.retriesAddToMlqueue()).as("TASK SET FULL: ADD_TO_MLQUEUE").isPositive();
            } else {
                assertThat(lun.iotmoCnt()).as("timeout: timed out").isPositive();
                assertThat(host.ehAborts()).as("timeout: ABORT TASK").isPositive();
            }
        }
    }

    /**
     * delay (ms) and ndelay (ns): the completion comes from the HBA's timer thread, never from the submitting thread
     * (scsi_debug's hrtimer), and not before the delay has passed.
     */
    @ParameterizedTest
    @ValueSource(strings = {"delay=20", "ndelay=20000000"})
    void delayedCompletionsArriveOnTheTimerThreadAfterTheDelay(String knob) throws Exception {
        try (BlockDevice dev = BlockDevices.open("debug:dev_size_mb=1," + knob)) {
            SubmitHandle h = dev.openHandle();
            CountDownLatch done = new CountDownLatch(1);
            AtomicReference<Thread> completer = new AtomicReference<>();
            AtomicLong elapsed = new AtomicLong();
            AtomicReference<BlkStatus> status = new AtomicReference<>();
            long start = System.nanoTime();
            h.submit(ReqOp.READ, 0, 512, ByteBuffer.allocate(512), (ud, st) -> {
                elapsed.set(System.nanoTime() - start);
                completer.set(Thread.currentThread());
                status.set(st);
                done.countDown();
            }, 0);
            assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
            assertThat(status.get()).isEqualTo(BlkStatus.OK);
            assertThat(completer.get()).isNotSameAs(Thread.currentThread());
            assertThat(completer.get().getName()).as("the HBA's completion timer").endsWith("-completion");
            assertThat(elapsed.get()).as("ns from submit to completion").isGreaterThanOrEqualTo(20_000_000L);
        }
    }

    @Test
    void rotationalSeekModelAndWriteSameDiscard() throws Exception {
        try (BlockDevice dev = BlockDevices.open("debug:rotational=1,seek_ns=100000,lbpws=1,delay=0")) {
            ScsiDisk disk = ((HbaDisk) dev).disk();
            assertThat(disk.info().nonRotational()).isFalse();
            assertThat(disk.scsiDevice().rotational()).isTrue();
            assertThat(disk.scsiDevice().queue().isRotational()).as("queue/rotational follows VPD B1h").isTrue();
            assertThat(disk.info().lbpws()).isTrue();
            assertThat(disk.info().lbpu()).as("lbpws alone advertises WRITE SAME(16) with UNMAP only").isFalse();
            SubmitHandle h = dev.openHandle();
            ByteBuffer b = ByteBuffer.allocate(4096);
            java.util.Arrays.fill(b.array(), (byte) 0x77);
            assertThat(Io.sync(h, ReqOp.WRITE, 8192, 4096, b)).isEqualTo(BlkStatus.OK);
            assertThat(Io.sync(h, ReqOp.DISCARD, 8192, 4096, null)).as("WRITE SAME(16) with UNMAP").isEqualTo(BlkStatus.OK);
            ByteBuffer r = ByteBuffer.allocate(4096);
            assertThat(Io.sync(h, ReqOp.READ, 8192, 4096, r)).isEqualTo(BlkStatus.OK);
            assertThat(r.array()).containsOnly((byte) 0);
        }
    }

    @Test
    void discardWithoutThinProvisioningIsNotSupported() throws Exception {
        try (BlockDevice dev = BlockDevices.open("debug:delay=0")) {
            assertThat(((HbaDisk) dev).disk().scsiDevice().queue().isRotational()).as("default: non-rotational").isFalse();
            assertThat(Io.sync(dev.openHandle(), ReqOp.DISCARD, 0, 512, null)).isEqualTo(BlkStatus.NOTSUPP);
        }
    }

    @Test
    void resetsGoToTheTargetCoreAndTheResetUnitAttentionIsRetriedTransparently() throws Exception {
        try (LoopHba hba = LoopHba.create(DebugParams.parse("delay=0,max_luns=2"))) {
            ScsiDisk disk = hba.disk(0);
            ScsiDevice sdev = disk.scsiDevice();
            SubmitHandle h = disk.openHandle();
            ByteBuffer b = ByteBuffer.allocate(512);
            assertThat(Io.sync(h, ReqOp.READ, 0, 512, b)).isEqualTo(BlkStatus.OK);
            long before = sdev.iorequestCnt();
            var lld = hba.hosts().get(0).lld();
            assertThat(lld.ehDeviceReset(sdev)).isEqualTo(io.hostwide.scsi.mid.EhResult.SUCCESS);
            assertThat(hba.core().taskManagement().resets()).isEqualTo(1);
            assertThat(Io.sync(h, ReqOp.READ, 0, 512, b)).isEqualTo(BlkStatus.OK);
            assertThat(sdev.iorequestCnt() - before).as("UNIT ATTENTION 29h/03h, then the retry").isEqualTo(2);
            assertThat(lld.ehTargetReset(sdev.target())).isEqualTo(io.hostwide.scsi.mid.EhResult.SUCCESS);
            assertThat(lld.ehHostReset(hba.hosts().get(0))).isEqualTo(io.hostwide.scsi.mid.EhResult.SUCCESS);
            assertThat(Io.sync(hba.disk(1).openHandle(), ReqOp.READ, 0, 512, b)).isEqualTo(BlkStatus.OK);
        }
    }
}
