package io.hostwide.management.config;

import io.hostwide.management.TargetAssembly;
import io.hostwide.tcm.lu.Lun;
import io.hostwide.tcm.port.TargetPort;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code gateway} section (issue 16): checked by key, and applied as the TPGT, relative target port identifier
 * and ALUA group of the gateway's ports and LUs; without it, TPGT 1 and relative port 1 as before.
 */
class GatewayConfigTest {

    private static String config(String gateway) {
        return """
                {
                  "gateway": %s,
                  "backstores": { "d": { "type": "ram", "size": "1m" } },
                  "targets": [ { "name": "iqn.2026-12.io.hostwide:t", "luns": [ { "lun": 0, "backstore": "d" } ] } ]
                }
                """.formatted(gateway);
    }

    @Test
    void aGatewayParses() {
        ServeConfig c = ServeConfigLoader.parse("c.json", config("{ \"name\": \"gw-a\", \"port_group\": 2, "
                + "\"alua\": \"explicit\" }"));
        assertThat(c.gateway()).isEqualTo(new ServeConfig.Gateway("gw-a", 2, "explicit"));
        assertThat(c.gateway().explicit()).isTrue();
        assertThat(ServeConfigLoader.parse("c.json", config("{ \"name\": \"gw-b\", \"port_group\": 3 }"))
                .gateway().explicit()).as("implicit by default").isFalse();
    }

    @Test
    void theHandoverTimeoutIsAKeyWithADefault() {
        ServeConfig c = ServeConfigLoader.parse("c.json", config("{ \"name\": \"gw-a\", \"port_group\": 2, "
                + "\"handover_timeout_ms\": 750 }"));
        assertThat(c.gateway().handoverTimeout()).isEqualTo(java.time.Duration.ofMillis(750));
        assertThat(ServeConfigLoader.parse("c.json", config("{ \"name\": \"gw-b\", \"port_group\": 3 }"))
                .gateway().handoverTimeout()).as("2 s by default").isEqualTo(java.time.Duration.ofSeconds(2));
        for (String bad : List.of("0", "99", "60001", "-5")) {
            assertThatThrownBy(() -> ServeConfigLoader.parse("c.json",
                    config("{ \"name\": \"gw-a\", \"port_group\": 1, \"handover_timeout_ms\": " + bad + " }")))
                    .as(bad).hasMessageStartingWith("c.json")
                    .hasMessageContaining("gateway.handover_timeout_ms " + bad + " is out of range (100..60000 ms");
        }
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json",
                config("{ \"name\": \"gw-a\", \"port_group\": 1, \"handover_timeout_ms\": \"soon\" }")))
                .hasMessageStartingWith("c.json").hasMessageContaining("handover_timeout_ms");
    }

    @Test
    void badKeysAreNamed() {
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json", config("{ \"port_group\": 2 }")))
                .hasMessageContaining("gateway.name is required");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json", config("{ \"name\": \"gw a\", \"port_group\": 2 }")))
                .hasMessageContaining("gateway.name 'gw a' must be 1..64 letters");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json", config("{ \"name\": \"gw-a\" }")))
                .hasMessageContaining("gateway.port_group is required (1..65535");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json", config("{ \"name\": \"gw-a\", \"port_group\": 0 }")))
                .hasMessageContaining("gateway.port_group 0 is out of range (1..65535)");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json",
                config("{ \"name\": \"gw-a\", \"port_group\": 65536 }")))
                .hasMessageContaining("gateway.port_group 65536 is out of range (1..65535)");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json",
                config("{ \"name\": \"gw-a\", \"port_group\": 1, \"alua\": \"auto\" }")))
                .hasMessageContaining("gateway.alua 'auto' is unknown (implicit or explicit)");
        assertThatThrownBy(() -> ServeConfigLoader.parse("c.json",
                config("{ \"name\": \"gw-a\", \"port_group\": 1, \"tpgt\": 1 }")))
                .hasMessageContaining("tpgt");
    }

    @Test
    void thePortGroupIsTheTpgtTheRelativePortAndTheAluaGroup() {
        ServeConfig c = ServeConfigLoader.parse("c.json", config("{ \"name\": \"gw-b\", \"port_group\": 7 }"));
        try (TargetAssembly a = TargetAssembly.build(c, List.of(new InetSocketAddress("127.0.0.1", 0)), null)) {
            TargetPort port = a.core().target("iqn.2026-12.io.hostwide:t").ports().get(0);
            assertThat(port.tag()).isEqualTo(7);
            assertThat(port.relativePortId()).isEqualTo(7);
            assertThat(port.portName()).endsWith(",t,0x0007");
            Lun lun = port.luns().get(0);
            assertThat(lun.aluaGroup().id()).isEqualTo(7);
            assertThat(lun.aluaGroup().name()).isEqualTo("gw-b");
            assertThatThrownBy(() -> a.reload(ServeConfigLoader.parse("c.json",
                    config("{ \"name\": \"gw-b\", \"port_group\": 8 }"))))
                    .hasMessageContaining("gateway can only change with a restart");
        }
        ServeConfig plain = ServeConfigLoader.parse("c.json", config("null"));
        try (TargetAssembly a = TargetAssembly.build(plain, List.of(new InetSocketAddress("127.0.0.1", 0)), null)) {
            TargetPort port = a.core().target("iqn.2026-12.io.hostwide:t").ports().get(0);
            assertThat(port.tag()).isEqualTo(1);
            assertThat(port.relativePortId()).isEqualTo(1);
            assertThat(port.luns().get(0).aluaGroup().id()).isZero();
        }
    }
}
