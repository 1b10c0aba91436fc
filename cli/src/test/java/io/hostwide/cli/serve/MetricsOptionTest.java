package io.hostwide.cli.serve;

import io.hostwide.cli.CliRun;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code serve --metrics}: loopback unless --insecure, a port required, compat names checked, before serving. */
class MetricsOptionTest {

    @Test
    void metricsBeyondLoopbackAreRefusedWithoutInsecure() {
        CliRun r = CliRun.run("serve", "--listen", "127.0.0.1:0", "--metrics", "0.0.0.0:0");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("refusing to serve metrics on 0.0.0.0:0").contains("--insecure");
    }

    @Test
    void aPortIsRequiredAndTheCompatNamesAreChecked() {
        CliRun noPort = CliRun.run("serve", "--listen", "127.0.0.1:0", "--metrics", "localhost");
        assertThat(noPort.status()).isEqualTo(2);
        assertThat(noPort.err()).contains("--metrics: 'localhost' needs a port (HOST:PORT, or PORT for loopback)");
        CliRun compat = CliRun.run("serve", "--listen", "127.0.0.1:0", "--metrics", "0", "--metrics-compat", "lio");
        assertThat(compat.status()).isEqualTo(2);
        assertThat(compat.err()).contains("--metrics-compat: 'lio' is unknown (ceph-iscsi or none)");
    }
}
