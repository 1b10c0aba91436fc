package io.hostwide.cli.ls;

import static io.hostwide.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.hostwide.cli.CliRun;
import io.hostwide.management.util.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code hostwide ls --device ...}: lsscsi's lines and JSON for emulated HBAs and the null device, and bad specs. */
class LsCommandTest {
    private static final String TWO_BY_TWO_BY_TWO = "debug:add_host=2,num_tgts=2,max_luns=2,delay=0";
    private static final Pattern LINE = Pattern.compile(
            "^\\[(\\d+):(\\d+):(\\d+):(\\d+)]\\s+disk\\s+HOSTWIDE\\s+scsi_debug\\s+\\S+\\s+8\\.00MiB\\s+sd[a-z]+$");



    @Test
    void twoHostsOfTwoTargetsOfTwoLunsAreEightLinesInHctlOrder() {
        CliRun r = run("ls", "--device", TWO_BY_TWO_BY_TWO);
        assertThat(r.status()).as(r.err()).isZero();
        String[] lines = r.out().split("\n");
        assertThat(lines).hasSize(8);
        List<int[]> hctl = new ArrayList<>();
        for (String line : lines) {
            Matcher m = LINE.matcher(line);
            assertThat(m.matches()).as(line).isTrue();
            hctl.add(new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                    Integer.parseInt(m.group(3)), Integer.parseInt(m.group(4))});
        }
        // Host numbers are process-wide (earlier tests took some): two consecutive hosts, each 0:{0,1}:{0,1}.
        int h0 = hctl.get(0)[0];
        for (int i = 0; i < 8; i++) {
            assertThat(hctl.get(i)).containsExactly(h0 + i / 4, 0, (i / 2) % 2, i % 2);
        }
    }

    @Test
    void jsonHasTheSameDevicesWithTheirAddressFields() throws Exception {
        CliRun r = run("ls", "--json", "--device", TWO_BY_TWO_BY_TWO);
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode devices = Json.mapper().readTree(r.out()).get("devices");
        assertThat(devices).hasSize(8);
        JsonNode last = devices.get(7);
        assertThat(last.get("hctl").asText()).isEqualTo(last.get("host").asInt() + ":0:1:1");
        assertThat(last.get("type").asText()).isEqualTo("disk");
        assertThat(last.get("vendor").asText()).isEqualTo("HOSTWIDE");
        assertThat(last.get("product").asText()).isEqualTo("scsi_debug");
        assertThat(last.get("size_bytes").asLong()).isEqualTo(8L << 20);
        assertThat(last.has("detail")).isFalse();
        assertThat(devices.get(4).get("host").asInt()).isEqualTo(devices.get(0).get("host").asInt() + 1);
    }

    @Test
    void verboseAddsQueueAndVpdAttributes() throws Exception {
        CliRun r = run("ls", "-v", "--device", "debug:submit_queues=2,host_max_queue=64,lbpu=1,delay=0");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out().split("\n")).hasSize(2);
        assertThat(r.out()).contains("queue_depth=64 can_queue=64 nr_hw_queues=2 host_tagset=1 rotational=0 "
                + "scheduler=none logical_block_size=512 thin_provisioning=1 lbpu=1 lbpws=0 max_transfer=");
        JsonNode d = Json.mapper().readTree(run("ls", "-v", "--json", "--device", "debug:rotational=1,delay=0").out())
                .at("/devices/0/detail");
        assertThat(d.get("rotational").asBoolean()).isTrue();
        assertThat(d.get("scheduler").asText()).isNotEmpty();
        assertThat(d.get("can_queue").asInt()).isEqualTo(192);
        assertThat(d.get("thin_provisioned").asBoolean()).isFalse();
        assertThat(d.has("max_transfer_blocks")).isTrue();
    }

    @Test
    void aNullDeviceIsItsBlockLineOnly() throws Exception {
        CliRun r = run("ls", "--device", "null:submit_queues=2");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).matches("\\[-]\\s+block\\s+-\\s+-\\s+-\\s+\\S+\\s+nullb\\d+\n");
        JsonNode d = Json.mapper().readTree(run("ls", "--json", "-v", "--device", "null:submit_queues=2").out())
                .at("/devices/0");
        assertThat(d.has("hctl")).isFalse();
        assertThat(d.at("/detail/nr_hw_queues").asInt()).isEqualTo(2);
        assertThat(d.at("/detail").has("queue_depth")).isFalse();
    }

    @Test
    void badKnobUnknownKindAndNoArgumentsAreOneLineUsageErrors() {
        CliRun knob = run("ls", "--device", "debug:num_tgts=0");
        assertThat(knob.status()).isEqualTo(2);
        assertThat(knob.err()).startsWith("hostwide ls: --device: debug: ").contains("num_tgts");
        CliRun kind = run("ls", "--device", "floppy:size=1");
        assertThat(kind.status()).isEqualTo(2);
        assertThat(kind.err()).startsWith("hostwide ls: --device: unknown device kind 'floppy'");
        CliRun none = run("ls");
        assertThat(none.status()).isEqualTo(2);
        assertThat(none.err()).contains("give --device");
        for (CliRun r : List.of(knob, kind, none)) {
            assertThat(r.out()).isEmpty();
            assertThat(r.err()).doesNotContain("Exception").doesNotContain("\tat ");
        }
    }
}
