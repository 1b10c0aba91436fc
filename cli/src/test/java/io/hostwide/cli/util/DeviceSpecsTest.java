package io.hostwide.cli.util;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DeviceSpecsTest {
    @Test
    void secretValuesAreRedactedAndEverythingElseKept() {
        assertThat(DeviceSpecs.redact("iscsi:url=iscsi://h/iqn.x:y/0,user=u,secret=abc,target_secret=def,io_timeout=5"))
                .isEqualTo("iscsi:url=iscsi://h/iqn.x:y/0,user=u,secret=<redacted>,target_secret=<redacted>,io_timeout=5");
        assertThat(DeviceSpecs.redact("iscsi:secret=abc")).isEqualTo("iscsi:secret=<redacted>");
        assertThat(DeviceSpecs.redact("iscsi:url=x,secret_env=CHAP")).isEqualTo("iscsi:url=x,secret_env=CHAP");
        assertThat(DeviceSpecs.redact("null:submit_queues=2")).isEqualTo("null:submit_queues=2");
    }
}
