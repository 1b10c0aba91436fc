package io.hostwide.blk.nullb;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.IoCallback;
import io.hostwide.blk.api.SubmitHandle;
import io.hostwide.blk.exec.ManualKblockd;
import org.junit.jupiter.api.Test;

import java.util.EnumMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** null_blk's timeout and requeue injection, end to end through the block layer. */
class FaultInjectionTest {

    @Test
    void droppedRequestsAreEndedByTheTimeoutHandler() {
        ManualKblockd kb = new ManualKblockd();
        NullDevice dev = NullDevice.create(NullConfig.parse("irqmode=0,timeout=3,io_timeout=1000,size=1", "to"), kb);
        SubmitHandle h = dev.openHandle();
        Map<BlkStatus, Integer> seen = new EnumMap<>(BlkStatus.class);
        IoCallback cb = (ud, st) -> seen.merge(st, 1, Integer::sum);
        for (int i = 0; i < 9; i++) {
            h.read(0, 512, java.nio.ByteBuffer.allocate(512), cb, i);
        }
        assertThat(seen).containsEntry(BlkStatus.OK, 6).doesNotContainKey(BlkStatus.TIMEOUT);
        kb.advance(2_000_000_000L);
        assertThat(seen).containsEntry(BlkStatus.OK, 6).containsEntry(BlkStatus.TIMEOUT, 3);
        assertThat(dev.queue().snapshot().timeouts()).isEqualTo(3);
        dev.close();
    }

    @Test
    void requeuedAndRefusedRequestsAllComplete() {
        ManualKblockd kb = new ManualKblockd();
        NullDevice dev = NullDevice.create(NullConfig.parse("irqmode=1,requeue=4,submit_queues=2,size=1", "rq"), kb);
        SubmitHandle h = dev.openHandle();
        Map<BlkStatus, Integer> seen = new EnumMap<>(BlkStatus.class);
        IoCallback cb = (ud, st) -> seen.merge(st, 1, Integer::sum);
        for (int i = 0; i < 40; i++) {
            h.write(0, 512, java.nio.ByteBuffer.allocate(512), cb, i);
        }
        kb.advance(50_000_000L);
        assertThat(seen).containsOnly(Map.entry(BlkStatus.OK, 40));
        assertThat(dev.queue().snapshot().dispatched()).isGreaterThan(40);   // re-issues counted
        dev.close();
    }

    @Test
    void aTimedOutMergedRequestEndsEveryMergedBioWithTimeout() {
        ManualKblockd kb = new ManualKblockd();
        NullDevice dev = NullDevice.create(NullConfig.parse("irqmode=0,timeout=2,io_timeout=1000,size=1", "tom"), kb);
        SubmitHandle h = dev.openHandle();
        Map<BlkStatus, Integer> seen = new EnumMap<>(BlkStatus.class);
        IoCallback cb = (ud, st) -> seen.merge(st, 1, Integer::sum);
        for (int round = 0; round < 2; round++) {
            h.startPlug();
            for (int i = 0; i < 4; i++) {
                h.read((round * 8L + i) * 512, 512, java.nio.ByteBuffer.allocate(512), cb, round * 4 + i);
            }
            h.finishPlug();   // one merged request per round; the second one is dropped
        }
        assertThat(dev.queue().merges()).isEqualTo(6);
        assertThat(seen).containsOnly(Map.entry(BlkStatus.OK, 4));
        kb.advance(2_000_000_000L);
        assertThat(seen).containsEntry(BlkStatus.OK, 4).containsEntry(BlkStatus.TIMEOUT, 4);
        dev.close();
    }

    @Test
    void requeuedMergedRequestsKeepTheirDataAndCompleteOnce() {
        ManualKblockd kb = new ManualKblockd();
        NullDevice dev = NullDevice.create(NullConfig.parse(
                "irqmode=1,requeue=2,memory_backed=1,size=1,scheduler=mq-deadline", "rqm"), kb);
        SubmitHandle h = dev.openHandle();
        int[] calls = new int[80];
        Map<BlkStatus, Integer> seen = new EnumMap<>(BlkStatus.class);
        IoCallback cb = (ud, st) -> {
            calls[(int) ud]++;
            seen.merge(st, 1, Integer::sum);
        };
        java.nio.ByteBuffer[] bufs = new java.nio.ByteBuffer[40];
        for (int round = 0; round < 5; round++) {
            h.startPlug();
            for (int i = 0; i < 8; i++) {
                int n = round * 8 + i;
                bufs[n] = java.nio.ByteBuffer.allocate(512);
                java.util.Arrays.fill(bufs[n].array(), (byte) (n + 1));
                h.write(n * 512L, 512, bufs[n], cb, n);
            }
            h.finishPlug();
        }
        kb.advance(50_000_000L);
        java.nio.ByteBuffer[] back = new java.nio.ByteBuffer[40];
        h.startPlug();
        for (int n = 0; n < 40; n++) {
            back[n] = java.nio.ByteBuffer.allocate(512);
            h.read(n * 512L, 512, back[n], cb, 40 + n);
        }
        h.finishPlug();
        kb.advance(50_000_000L);
        assertThat(seen).containsOnly(Map.entry(BlkStatus.OK, 80));
        assertThat(calls).containsOnly(1);
        for (int n = 0; n < 40; n++) {
            assertThat(back[n]).as("block %d", n).isEqualTo(bufs[n]);
        }
        assertThat(dev.queue().merges()).isPositive();
        assertThat(dev.queue().snapshot().dispatched()).isGreaterThan(dev.queue().snapshot().completed());
        dev.close();
    }
}
