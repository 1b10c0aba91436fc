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
}
