package io.hostwide.loop;

import io.hostwide.blk.BlkStatus;
import io.hostwide.blk.ReqOp;
import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDevices;
import io.hostwide.scsi.sd.ScsiDisk;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code scheduler=} knob of {@code loop:} and {@code debug:}: every LUN's queue, checked like --scheduler. */
class SchedulerKnobTest {

    @ParameterizedTest
    @ValueSource(strings = {"loop:luns=2,", "debug:max_luns=2,delay=0,"})
    void schedulerKnobSetsEveryLunsQueueAndIOFlowsThroughIt(String prefix) throws Exception {
        try (BlockDevice dev = BlockDevices.open(prefix + "scheduler=mq-deadline")) {
            LoopHba hba = ((HbaDisk) dev).hba();
            assertThat(hba.config().scheduler()).isEqualTo("mq-deadline");
            for (ScsiDisk d : hba.disks()) {
                assertThat(d.queue().schedulerName()).isEqualTo("mq-deadline");
            }
            ByteBuffer out = ByteBuffer.allocate(4096);
            out.putInt(0, 0x5EED);
            assertThat(Io.sync(dev.openHandle(), ReqOp.WRITE, 0, 4096, out))
                    .isEqualTo(BlkStatus.OK);
            ByteBuffer in = ByteBuffer.allocate(4096);
            assertThat(Io.sync(dev.openHandle(), ReqOp.READ, 0, 4096, in))
                    .isEqualTo(BlkStatus.OK);
            assertThat(in.getInt(0)).isEqualTo(0x5EED);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"loop:", "debug:delay=0,"})
    void withoutTheKnobTheDiskKeepsItsOwnAndNoneIsAccepted(String prefix) throws Exception {
        try (BlockDevice dev = BlockDevices.open(prefix.replaceAll(",$", ""))) {
            LoopHba hba = ((HbaDisk) dev).hba();
            assertThat(hba.config().scheduler()).isNull();
            assertThat(hba.disk(0).queue().schedulerName()).isEqualTo("none");
        }
        try (BlockDevice dev = BlockDevices.open(prefix + "scheduler=none")) {
            assertThat(((HbaDisk) dev).hba().disk(0).queue().schedulerName()).isEqualTo("none");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"loop", "debug"})
    void unknownSchedulerIsRefusedBeforeAnyHbaExistsNamingTheKnobAndTheChoices(String kind) {
        assertThatThrownBy(() -> BlockDevices.open(kind + ":scheduler=bfq"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(kind + ": knob 'scheduler': unknown scheduler 'bfq' (have: none mq-deadline)");
        assertThatThrownBy(() -> BlockDevices.open(kind + ":scheduler="))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("knob 'scheduler'").hasMessageContaining("have: none mq-deadline");
    }
}
