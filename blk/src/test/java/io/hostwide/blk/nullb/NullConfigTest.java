package io.hostwide.blk.nullb;

import io.hostwide.blk.api.BlockDevices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NullConfigTest {

    @Test
    void parsesTheLeadsExample() {
        NullConfig c = NullConfig.parse("submit_queues=4,hw_queue_depth=64,completion_nsec=10000,memory_backed=1", "n0");
        assertThat(c.submitQueues()).isEqualTo(4);
        assertThat(c.hwQueueDepth()).isEqualTo(64);
        assertThat(c.completionNsec()).isEqualTo(10_000);
        assertThat(c.irqmode()).as("completion_nsec alone selects timer mode").isEqualTo(2);
        assertThat(c.memoryBacked()).isTrue();
        assertThat(c.name()).isEqualTo("n0");
    }

    @Test
    void defaultsAreNullBlks() {
        NullConfig c = NullConfig.parse("", "n0");
        assertThat(c.submitQueues()).isEqualTo(1);
        assertThat(c.hwQueueDepth()).isEqualTo(64);
        assertThat(c.irqmode()).isEqualTo(1);
        assertThat(c.blockSize()).isEqualTo(512);
        assertThat(c.sizeBytes()).isEqualTo(250L << 30);
        assertThat(NullConfig.parse("size=16,bs=4096", "x").sizeBytes()).isEqualTo(16L << 20);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "submit_queus=4|submit_queus",
        "hw_queue_depth=0|hw_queue_depth",
        "hw_queue_depth=10241|hw_queue_depth",
        "hw_queue_depth=abc|hw_queue_depth",
        "submit_queues=-1|submit_queues",
        "irqmode=3|irqmode",
        "memory_backed=yes|memory_backed",
        "bs=1000|bs",
        "bs=8192|bs",
        "discard=1|discard",
        "gb=1,size=5|gb",
        "completion_nsec=-5|completion_nsec",
        "shared_tags=2|shared_tags",
        "submit_queues=2,submit_queues=3|submit_queues",
        "name=a b|name",
        "hw_queue_depth|hw_queue_depth",
        "gb=99999999999999|gb",
    })
    void errorsNameTheKnob(String spec, String knob) {
        assertThatThrownBy(() -> NullConfig.parse(spec, "n0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(knob);
    }

    @Test
    void registryRejectsUnknownKindsAndBadKnobs() {
        assertThatThrownBy(() -> BlockDevices.open("nul:submit_queues=1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nul").hasMessageContaining("null");
        assertThatThrownBy(() -> BlockDevices.open("null:hw_queue_dpth=4"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hw_queue_dpth");
    }
}
